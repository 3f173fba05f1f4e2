"""The packages the fake hvigorw writes: real `.hap` zips, as hap-sign-tool and a device read
them (see ../README.md "The HAP").

A HAP holds `module.json` (app.json5 and the module's module.json5 merged, the shape DevEco's
build writes), `pack.info`, `resources.index` and the compiled code `ets/modules.abc`. The fake
compiler's "code" is JSON saying what each ability logs in onCreate (read from its ArkTS
source by fake_hvigor), which the device-side fakes run on `aa start`. Entries are stored, not
deflated, with a fixed time, so the same project gives the same bytes.
"""

import json
import re
import zipfile

ABC_FORMAT = "rein-fake-abc/1"
FIXED_TIME = (2024, 1, 1, 0, 0, 0)


def api_level(value):
    """12 from 12, "12" or "5.0.0(12)"; None when unknown."""
    if isinstance(value, int):
        return value
    m = re.search(r"\((\d+)\)\s*$", str(value or "")) or re.match(r"^\s*(\d+)\s*$", str(value or ""))
    return int(m.group(1)) if m else None


def module_json(app, mod, product):
    """What the build writes as module.json: the app's fields, the API levels of the product,
    and the module's, abilities included."""
    api = api_level(product.get("compatibleSdkVersion"))
    return {
        "app": {
            "bundleName": app.get("bundleName"),
            "vendor": app.get("vendor", ""),
            "versionCode": app.get("versionCode"),
            "versionName": app.get("versionName"),
            "icon": app.get("icon"),
            "label": app.get("label"),
            "minAPIVersion": api,
            "targetAPIVersion": api,
            "apiReleaseType": "Release",
            "compileSdkType": product.get("runtimeOS", "HarmonyOS"),
            "bundleType": "app",
            "debug": product.get("buildMode", "debug") != "release",
        },
        "module": {
            "name": mod.get("name"),
            "type": mod.get("type"),
            "mainElement": mod.get("mainElement"),
            "deviceTypes": mod.get("deviceTypes") or [],
            "deliveryWithInstall": mod.get("deliveryWithInstall", True),
            "installationFree": mod.get("installationFree", False),
            "pages": mod.get("pages"),
            "abilities": [
                {k: a.get(k) for k in ("name", "srcEntry", "exported", "skills") if k in a}
                for a in mod.get("abilities") or []
            ],
            "compileMode": "esmodule",
        },
    }


def pack_info(module):
    """pack.info: the summary app stores use to tell the packages of an app apart."""
    app, mod = module["app"], module["module"]
    return {
        "summary": {
            "app": {"bundleName": app["bundleName"], "version": {"code": app["versionCode"], "name": app["versionName"]}},
            "modules": [
                {
                    "mainAbility": mod["mainElement"],
                    "deviceType": mod["deviceTypes"],
                    "distro": {"moduleType": mod["type"], "moduleName": mod["name"],
                               "deliveryWithInstall": mod["deliveryWithInstall"],
                               "installationFree": mod["installationFree"]},
                    "apiVersion": {"compatible": app["minAPIVersion"], "target": app["targetAPIVersion"],
                                   "releaseType": app["apiReleaseType"]},
                }
            ],
        },
        "packages": [{"name": mod["name"], "moduleType": mod["type"], "deviceType": mod["deviceTypes"],
                      "deliveryWithInstall": mod["deliveryWithInstall"]}],
    }


def write(path, module, on_create_logs):
    """Writes the HAP; `on_create_logs` maps each ability's name to what its onCreate logs."""
    code = {"format": ABC_FORMAT, "abilities": {name: {"onCreateLogs": logs} for name, logs in on_create_logs.items()}}
    entries = [
        ("module.json", json.dumps(module, indent=2, sort_keys=True)),
        ("pack.info", json.dumps(pack_info(module), indent=2, sort_keys=True)),
        ("resources.index", "rein fake resource index\n"),
        ("ets/modules.abc", json.dumps(code, indent=2, sort_keys=True)),
    ]
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as z:
        for name, text in entries:
            info = zipfile.ZipInfo(name, date_time=FIXED_TIME)
            info.external_attr = 0o644 << 16
            z.writestr(info, text.encode("utf-8"))
