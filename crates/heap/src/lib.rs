//! The global allocator of streamroute's `.wasm` builds: TLSF ([`rlsf`]) over wasm memory,
//! with a cap on how far memory may grow and a reserve that large allocations leave to small
//! ones. streamroute itself forbids `unsafe`; an allocator cannot do without it, so it lives
//! here, on its own.
//!
//! Why a reserve: running out of memory is an error only where the code asked fallibly
//! (`try_reserve`, every kept buffer); an infallible allocation that fails aborts the whole
//! instance. The infallible ones are small (a handle's box, a short string, a result vector),
//! so an allocation of [`LARGE`] bytes or more is refused unless a block of its size plus
//! [`RESERVE`] is free: when memory runs out, it runs out for the large ones first, and
//! what is left is for the small ones of the calls in progress. A new object or a one-shot
//! call begins only with [`ROOM`] free (`__sr_heap_enter`, asked by the glue).
//!
//! Wasm is single-threaded here (no `atomics`): one call of the allocator at a time.

#![no_std]
#![cfg(target_arch = "wasm32")]

#[cfg(target_feature = "atomics")]
compile_error!("streamroute-heap is for single-threaded wasm");

use core::alloc::{GlobalAlloc, Layout};
use core::arch::wasm32;
use core::cell::UnsafeCell;
use core::ptr::{self, NonNull};
use rlsf::{FlexSource, FlexTlsf};

const PAGE: usize = 1 << 16;
/// wasm32 memory holds at most 65,536 pages (4 GiB).
const MAX_PAGES: usize = 1 << 16;
/// An allocation this large or larger leaves [`RESERVE`] free, or fails.
pub const LARGE: usize = 16 << 10;
/// What large allocations leave free for small ones.
pub const RESERVE: usize = 1 << 20;
/// What a new object or a one-shot call needs free to begin.
pub const ROOM: usize = RESERVE / 2;

/// Wasm memory as the allocator's source: grown by whole pages, never past `limit` pages.
struct Pages {
    limit: usize,
}

impl Pages {
    /// Grows memory by `pages`; the first new page, or `None` past the limit or when the
    /// engine refuses.
    fn grow(&self, pages: usize) -> Option<usize> {
        if pages > self.limit.saturating_sub(wasm32::memory_size(0)) {
            return None;
        }
        let first = wasm32::memory_grow(0, pages);
        (first != usize::MAX).then_some(first)
    }
}

// Safety: every block handed out is fresh memory of this instance that nothing else uses.
// No pool is grown in place (as with rlsf's own wasm source in practice): that code is not
// worth its size (bench/README.md, "Measurements behind design choices").
unsafe impl FlexSource for Pages {
    unsafe fn alloc(&mut self, min_size: usize) -> Option<NonNull<[u8]>> {
        let pages = min_size.checked_add(PAGE - 1)? / PAGE;
        let first = self.grow(pages)?;
        NonNull::new(ptr::slice_from_raw_parts_mut((first * PAGE) as *mut u8, pages * PAGE))
    }

    fn min_align(&self) -> usize {
        PAGE
    }
}

type Tlsf = FlexTlsf<Pages, usize, usize, { usize::BITS as usize }, { usize::BITS as usize }>;

struct Cell(UnsafeCell<Tlsf>);

// Safety: single-threaded wasm (checked above).
unsafe impl Sync for Cell {}

static TLSF: Cell = Cell(UnsafeCell::new(FlexTlsf::new(Pages { limit: MAX_PAGES })));

/// The allocator; each entry point takes the one `&mut` to it for its whole call.
///
/// # Safety
/// No other reference to it may be alive: the allocator does not allocate, and wasm has one
/// thread.
unsafe fn tlsf() -> &'static mut Tlsf {
    &mut *TLSF.0.get()
}

/// Whether a block of `n` bytes can be had (growing memory if it must): taken and given back.
fn fits(t: &mut Tlsf, n: usize) -> bool {
    let Ok(layout) = Layout::from_size_align(n, 16) else {
        return false;
    };
    match t.allocate(layout) {
        Some(p) => {
            // Safety: just allocated with this alignment.
            unsafe { t.deallocate(p, 16) };
            true
        }
        None => false,
    }
}

/// Whether an allocation of `size` bytes may be made: small ones always, large ones when
/// [`RESERVE`] is left beside them.
fn may_take(t: &mut Tlsf, size: usize) -> bool {
    size < LARGE || fits(t, size.saturating_add(RESERVE))
}

/// The global allocator: `#[global_allocator] static A: streamroute_heap::Heap = streamroute_heap::Heap;`
pub struct Heap;

unsafe impl GlobalAlloc for Heap {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let t = tlsf();
        if !may_take(t, layout.size()) {
            return ptr::null_mut();
        }
        t.allocate(layout).map_or(ptr::null_mut(), NonNull::as_ptr)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        tlsf().deallocate(NonNull::new_unchecked(ptr), layout.align());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let t = tlsf();
        if new_size > layout.size() && !may_take(t, new_size) {
            return ptr::null_mut();
        }
        let new = Layout::from_size_align_unchecked(new_size, layout.align());
        t.reallocate(NonNull::new_unchecked(ptr), new).map_or(ptr::null_mut(), NonNull::as_ptr)
    }
}

/// For the JS glue (scripts/patch-glue.mjs), at the start of every constructor and one-shot
/// call: caps wasm memory at `bytes` (`init({ maxMemoryBytes })`, whole 64 KiB pages; 0 for
/// none; memory already grown past it stays, it just grows no more), and whether the call may
/// begin: [`ROOM`] bytes free (memory is grown for them if it must be).
#[no_mangle]
pub extern "C" fn __sr_heap_enter(bytes: f64) -> bool {
    // Safety: no other reference to the allocator is alive between calls; only the limit of
    // the source changes, no allocation of it.
    let t = unsafe { tlsf() };
    let pages = (bytes / PAGE as f64) as usize; // saturating: NaN is 0
    unsafe { t.source_mut_unchecked() }.limit = if pages == 0 { MAX_PAGES } else { pages.min(MAX_PAGES) };
    fits(t, ROOM)
}
