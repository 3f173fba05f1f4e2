"""What the fake hvigorw builds of each module: `assembleHap` packages the entry and feature
modules as `.hap`, `assembleHsp` the shared ones as `.hsp` (shared/HARMONY.md §1, the tasks;
a module's `type` in its module.json5, §2), each as
`<module>/build/<product>/outputs/<target>/<module>-<target>-{unsigned,signed}.<ext>`.

A module that depends on a shared module of the project (`"library": "file:../library"` in its
oh-package.json5) gets `{"moduleName": "library"}` in the `dependencies` of its module.json:
the field the device's installer checks (bundlemanager_bundle_framework
`bundle_install_checker.cpp` `CheckDependency`).
"""

import os

import fake_json5

TASK_KINDS = {"assembleHap": ("entry", "feature"), "assembleHsp": ("shared",)}


def kind_of(mod):
    return mod.get("type") or "entry"


def built_by(task, mod):
    """Whether `task` packages the module whose module.json5 `module` object is `mod`."""
    return kind_of(mod) in TASK_KINDS.get(task, ())


def extension(mod):
    return ".hsp" if kind_of(mod) == "shared" else ".hap"


def _load(path):
    try:
        return fake_json5.load_file(path)
    except (OSError, fake_json5.Json5Error):
        return {}


def dependencies(root, profile, src):
    """The project's shared modules that the module in `src` names in its oh-package.json5."""
    wanted = (_load(os.path.join(src, "oh-package.json5")).get("dependencies") or {}).values()
    folders = set()
    for spec in wanted:
        if isinstance(spec, str) and spec.startswith("file:"):
            folders.add(os.path.normpath(os.path.join(src, spec[len("file:"):])))
    deps = []
    for m in profile.get("modules") or []:
        name = m.get("name")
        folder = os.path.normpath(os.path.join(root, m.get("srcPath", "./" + str(name))))
        manifest = _load(os.path.join(folder, "src", "main", "module.json5")).get("module", {})
        if folder in folders and kind_of(manifest) == "shared":
            deps.append({"moduleName": name})
    return deps
