// How a test page reports: its result as JSON in the <pre id="out"> and in `window.__result`,
// which browser.test.mjs waits for.
export function publish(result) {
  const json = JSON.stringify(result);
  document.getElementById('out').textContent = json;
  window.__result = json;
}
