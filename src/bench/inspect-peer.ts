// The peer's side of the bench (inspect-archive.ts): a Python script that imports Inspect's
// read_eval_log and reads each log given, timing each, and prints one JSON line. Modules inspect_ai
// imports but this machine cannot install (PEER_ABSENT, default acp, textual, jsonlines: a protocol
// SDK and a terminal UI library, none of them on read_eval_log's path) get stand-ins whose every name
// can be subclassed, called and subscripted; each stand-in used is named in what it prints.
export const PEER_PY = String.raw`import importlib.abc, importlib.machinery, json, os, sys, time, types
from typing import Any

# Dependencies of inspect_ai that this machine cannot install: stand-ins whose every name is Any
# (they appear only as annotations and base classes in the modules read_eval_log imports).
ABSENT = set(os.environ.get("PEER_ABSENT", "acp,textual,jsonlines").split(","))

class _Meta(type):
    def __getattr__(cls, n):
        if n.startswith("__"):
            raise AttributeError(n)
        return type(n, (_Anything,), {})
    def __or__(cls, o): return cls
    def __ror__(cls, o): return cls
    def __getitem__(cls, k): return cls

class _Anything(metaclass=_Meta):
    def __init_subclass__(cls, **k): pass
    """Instantiated, called, subclassed, subscripted: a stand-in for a user-interface library's names."""
    def __init__(self, *a, **k): pass
    def __call__(self, *a, **k): return _Anything()
    def __getattr__(self, n): return _Anything()
    def __class_getitem__(cls, item): return cls
    def __getitem__(self, k): return _Anything()
    def __or__(self, o): return self
    def __ror__(self, o): return self

# Names used as pydantic annotations take Any; a user interface's names (textual) take _Anything.
AS_ANY = set(os.environ.get("PEER_AS_ANY", "").split(","))

class _Stand(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        if self.__name__.split(".")[0] in AS_ANY:
            return Any
        return type(name, (_Anything,), {})

class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] not in ABSENT:
            return None
        return importlib.machinery.ModuleSpec(name, self, is_package=True)
    def create_module(self, spec):
        m = _Stand(spec.name)
        m.__path__ = []
        return m
    def exec_module(self, module):
        pass

for top in list(ABSENT):
    try:
        __import__(top)
        ABSENT.discard(top)
    except ImportError:
        pass
sys.meta_path.append(_Finder())

t0 = time.perf_counter()
from inspect_ai.log import read_eval_log
imported = time.perf_counter() - t0
out = {"import_s": imported, "stand_ins": sorted(ABSENT), "logs": []}
for f in sys.argv[1:]:
    t = time.perf_counter()
    try:
        log = read_eval_log(f)
        out["logs"].append({"file": f, "s": time.perf_counter() - t, "samples": len(log.samples or [])})
    except Exception as e:
        out["logs"].append({"file": f, "s": time.perf_counter() - t, "error": f"{type(e).__name__}: {str(e)[:200]}"})
print(json.dumps(out))
`;
