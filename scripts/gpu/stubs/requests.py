"""Import stub for `requests` (not installed on the GPU box; no network there anyway).

lm_eval/utils.py imports requests at module level but only uses it to fetch remote files, which
HFLM.loglikelihood on a local checkpoint never does. Any actual use fails loudly."""


class RequestException(Exception):
    pass


class Session:
    def __init__(self, *args, **kwargs):
        raise RequestException("requests is stubbed (scripts/gpu/stubs): no HTTP on this machine")


def get(*args, **kwargs):
    raise RequestException("requests is stubbed (scripts/gpu/stubs): no HTTP on this machine")


post = get
