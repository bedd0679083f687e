"""The conformance search: runs of the real cluster drawn as plans, run, judged and shrunk."""
