"""Import stub: lm-eval 0.4.4–0.4.8's lm_eval.api.model imports sqlitedict at module level for CachingLM
(--use_cache), which the recordings never turn on."""


class SqliteDict:
    def __init__(self, *_args, **_kwargs):
        raise RuntimeError("sqlitedict is stubbed here; lm-eval's request cache is not available")
