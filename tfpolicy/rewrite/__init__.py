"""Rewriting manifests: a change as edits (edits.py), one document's data and the policies
in, edits and findings out (engine.py, pure), and a file's text in, text out
(pipeline.py: only the documents a policy touches are parsed and spliced)."""
