"""Command handlers: parse → build → run → exit code. The engine lives elsewhere."""
