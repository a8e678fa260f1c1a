# contract_keys.py — the scripts' names of the contract's keys and meta.json
# fields, read from harness/contract/ when imported, as the driver's come from
# key_names.h and meta_names.h: KEYS.elapsed_ns is "elapsed_ns" (keys.def),
# META.finished is "finished" and META.workload_family a workload's "family"
# (meta_fields.def: META.<object>_<name> for a field of an object inside
# meta.json). A name the table lacks raises instead of reading nothing
# (KEYS.elapsd_ns; KEYS.named("size_le8_count") for a name put together). The
# scripts name no key by hand (tests/unit/contract_names_test.py scans for it).
import os
import re

CONTRACT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness", "contract")


class Names:
    """The names one table of the contract defines, each an attribute holding its name."""

    def __init__(self, path, pairs):
        """pairs: text -> [(attribute, name)]."""
        with open(path) as f:
            found = pairs(f.read())
        if not found:
            raise RuntimeError("%s defines no name" % path)
        self._path = os.path.relpath(os.path.normpath(path), os.path.join(CONTRACT, "..", ".."))
        self.__dict__.update(found)

    def __getattr__(self, attribute):  # only for a name the table lacks
        raise AttributeError("%s is not in %s" % (attribute, self.__dict__.get("_path", "the contract")))

    def named(self, attribute):
        """The name of `attribute` (one put together: "size_%s_count" % b); KeyError when the table lacks it."""
        if attribute.startswith("_") or attribute not in self.__dict__:
            raise KeyError("%s is not in %s" % (attribute, self._path))
        return self.__dict__[attribute]


def _keys(text):
    return [(m.group(1), m.group(1)) for m in re.finditer(r"^KEY\((\w+), ", text, re.M)]


def _meta_fields(text):
    return ([(m.group(1), m.group(1)) for m in re.finditer(r"^META_FIELD\((\w+), ", text, re.M)] +
            [(m.group(1) + "_" + m.group(2), m.group(2))
             for m in re.finditer(r"^META_OBJECT_FIELD\((\w+), (\w+), ", text, re.M)])


KEYS = Names(os.path.join(CONTRACT, "keys.def"), _keys)
META = Names(os.path.join(CONTRACT, "meta_fields.def"), _meta_fields)
