"""`whatif`: scenarios, pushes, runs and CI checks from the command line.

Exit codes: 0 success (a check passed), 1 a check failed (pods stay pending, or a chosen
spread constraint's maxSkew is exceeded), 2 anything else: a bad file, a refused token,
a stale push, a server that cannot be reached, a failed run. Errors are one `error:` line
on stderr, never a traceback. This is the only module of the client that prints or exits.
"""

import argparse
import getpass
import json
import os
import socket
import sys
from pathlib import Path

from . import config, local, report
from .api import Api, ApiError, query
from .errors import ClientError


class Parser(argparse.ArgumentParser):
    def error(self, message):
        raise ClientError(f"{message} (see `{self.prog} --help`)")


def common_options(top):
    """--server, --token, --json: accepted before or after the command (a command's copy keeps the top's value)."""
    common = Parser(add_help=False)
    keep = {} if top else {"default": argparse.SUPPRESS}
    common.add_argument("--server", help="Whatif URL (else $WHATIF_SERVER, else the config file)", **keep)
    common.add_argument("--token", help="API token (else $WHATIF_TOKEN, else the config file)", **keep)
    common.add_argument("--json", action="store_true", help="print JSON instead of text", **keep)
    return common


def build_parser():
    common = common_options(top=False)
    p = Parser(prog="whatif", description="What-if Kubernetes scheduling from scripts and CI pipelines.",
               parents=[common_options(top=True)])
    sub = p.add_subparsers(dest="command", required=True, parser_class=Parser)

    c = sub.add_parser("login", parents=[common], help="get an API token and keep it in the config file")
    c.add_argument("--username", help="else $WHATIF_USERNAME, else asked")
    c.add_argument("--password-stdin", action="store_true", help="read the password from stdin")

    sub.add_parser("scenarios", parents=[common], help="list the scenarios of your teams").add_argument(
        "--team", help="only this team (id or name)")

    c = sub.add_parser("push", parents=[common], help="save a file as a new revision of a scenario")
    c.add_argument("file", nargs="+", help="manifests (YAML or JSON); several files are joined")
    c.add_argument("--scenario", required=True, type=int, metavar="ID")
    c.add_argument("--base", type=int, metavar="N",
                   help="the revision your file was edited from; the push fails if the scenario has moved on "
                        "(default: the current revision)")
    c.add_argument("--config", metavar="FILE", help="a KubeSchedulerConfiguration file")
    c.add_argument("--message", "-m", default="", help="revision message")

    c = sub.add_parser("run", parents=[common], help="run a scenario on the server's workers")
    c.add_argument("scenario", type=int, metavar="ID")
    c.add_argument("--revision", type=int, metavar="N", help="default: the current revision")
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--wait", action="store_true", help="wait for the result and print a summary")
    c.add_argument("--timeout", type=float, default=600, help="seconds to wait (default 600)")

    c = sub.add_parser("check", parents=[common],
                       help="simulate manifests; exit 1 if pods stay pending or a spread constraint is exceeded")
    c.add_argument("file", nargs="+", help="manifests (YAML or JSON); several files are joined")
    c.add_argument("--local", action="store_true", help="run the engine here, without a server")
    c.add_argument("--scenario", type=int, metavar="ID", help="push to this scenario, then run it")
    c.add_argument("--team", help="else find (by --name) or create the scenario in this team")
    c.add_argument("--name", help="scenario name with --team (default: the first file's name)")
    c.add_argument("--config", metavar="FILE", help="a KubeSchedulerConfiguration file")
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--spread", action="append", default=[], metavar="TOPOLOGY_KEY",
                   help="fail when a spread constraint on this key ends the run above its maxSkew, or a pod "
                        "stays pending because no domain of it is within maxSkew (repeatable)")
    c.add_argument("--allow-pending", action="store_true",
                   help="do not fail on pending pods as such (only on --spread violations)")
    c.add_argument("--junit", metavar="PATH", help="also write a JUnit XML report here")
    c.add_argument("--timeout", type=float, default=600, help="seconds to wait for the run (default 600)")

    c = sub.add_parser("analyse", parents=[common],
                       help="work out an answer on the server's workers: nodes to add, replicas that fit, "
                            "losing each zone, draining nodes, scoring configurations")
    c.add_argument("scenario", type=int, metavar="ID")
    c.add_argument("kind", choices=["capacity", "replicas", "zones", "drain", "tuning"])
    c.add_argument("--extra-zone", action="append", default=[], metavar="ZONE",
                   help="capacity: also add nodes in this new zone (repeatable)")
    c.add_argument("--templates", metavar="FILE", help="capacity: node templates to add (a JSON list) instead of "
                                                       "the cluster's own shapes")
    c.add_argument("--pod", help="replicas: copies of this pod (namespace/name)")
    c.add_argument("--node", action="append", default=[], metavar="NAME", help="drain: a node (repeatable)")
    c.add_argument("--strategy", action="append", default=[], metavar="NAME",
                   help="tuning: a NodeResourcesFit scoring strategy to compare (repeatable; default all three)")
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--wait", action="store_true", help="wait, showing progress on stderr, and print the answer")
    c.add_argument("--timeout", type=float, default=1800, help="seconds to wait (default 1800)")

    c = sub.add_parser("analysis", parents=[common], help="an analysis's progress or answer")
    c.add_argument("analysis", type=int, metavar="ID")
    c = sub.add_parser("cancel-analysis", parents=[common], help="cancel an unfinished analysis")
    c.add_argument("analysis", type=int, metavar="ID")

    c = sub.add_parser("export", parents=[common], help="a finished run's outcome per pod, as CSV or JSON")
    c.add_argument("run", type=int, metavar="RUN_ID")
    c.add_argument("--csv", action="store_true", help="CSV (pod, outcome, node, nominated_node, message)")
    return p


def main(argv=None):
    try:
        args = build_parser().parse_args(argv)
        return COMMANDS[args.command](args)
    except ClientError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as e:  # a bug: still one line, no traceback
        print(f"error: internal error: {type(e).__name__}: {e}", file=sys.stderr)
        return 2


def out(args, data, text):
    print(json.dumps(data, indent=2) if args.json else text)


def api_for(args, need_token=True):
    server, token = config.resolve(args.server, args.token, need_token)
    return Api(server, token)


def read_files(paths, what="file"):
    """The files' text joined as YAML documents, and a name for messages."""
    texts = []
    for path in paths:
        try:
            texts.append(Path(path).read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ClientError(f"{path}: no such file")
        except IsADirectoryError:
            raise ClientError(f"{path}: is a directory")
        except UnicodeDecodeError:
            raise ClientError(f"{path}: not UTF-8 text")
        except OSError as e:
            raise ClientError(f"{path}: cannot read: {e.strerror or e}")
    if len(texts) == 1:
        return texts[0], str(paths[0])
    return "\n---\n".join(t.rstrip("\n") for t in texts) + "\n", "+".join(str(p) for p in paths)


def read_config(path):
    return read_files([path])[0] if path else ""


# --- commands ---------------------------------------------------------------------------

def cmd_login(args):
    server, _ = config.resolve(args.server, "-", need_token=False)
    username = args.username or os.environ.get("WHATIF_USERNAME") or input("Username: ")
    if args.password_stdin:
        password = sys.stdin.readline().rstrip("\n")
    else:
        password = os.environ.get("WHATIF_PASSWORD") or getpass.getpass("Password: ")
    name = f"whatif-cli@{socket.gethostname()}"[:100]
    body = Api(server).post("/api/auth/token/", {"username": username, "password": password, "name": name})
    path = config.save(server, body["token"])
    out(args, {"server": server, "username": username, "token_prefix": body.get("prefix"), "config": str(path)},
        f"Logged in to {server} as {username}; token {body.get('prefix')}… saved in {path}")
    return 0


def all_pages(api, url):
    rows = []
    while url:
        page = api.get(url)
        if isinstance(page, list):
            return rows + page
        rows += page.get("results", [])
        url = page.get("next")
    return rows


def cmd_scenarios(args):
    api = api_for(args)
    rows = all_pages(api, "/api/scenarios/" + query({"team": args.team}))
    lines = [f"{'ID':>5}  {'TEAM':<16} {'REV':>4}  {'LAST RUN':<10} NAME"]
    for s in rows:
        last = (s.get("last_run") or {}).get("status", "-")
        lines.append(f"{s['id']:>5}  {s['team_name'][:16]:<16} r{s['current_revision']:<3}  {last:<10} {s['name']}")
    out(args, rows, "\n".join(lines) if rows else "No scenarios.")
    return 0


def push_revision(api, scenario_id, manifests, config_text, base, message):
    """POST a revision on `base`; a stale base is a ClientError saying which revision is current."""
    try:
        return api.post(f"/api/scenarios/{scenario_id}/revisions/",
                        {"manifests": manifests, "config": config_text, "message": message},
                        headers={"If-Match": f'"{base}"'})
    except ApiError as e:
        if e.status == 409:
            current = (e.body or {}).get("current_revision", "?") if isinstance(e.body, dict) else "?"
            raise ClientError(f"scenario {scenario_id} has moved on: revision {current} is the current one, and your "
                              f"file was based on revision {base}. Fetch revision {current}, reapply your change "
                              "and push again with --base " + str(current))
        raise


def cmd_push(args):
    manifests, _ = read_files(args.file)
    config_text = read_config(args.config)
    api = api_for(args)
    base = args.base
    if base is None:
        base = api.get(f"/api/scenarios/{args.scenario}/")["current_revision"]
    revision = push_revision(api, args.scenario, manifests, config_text, base, args.message or "Pushed by whatif")
    revision.pop("manifests", None)
    revision.pop("config", None)
    out(args, revision, f"Saved revision {revision['number']} of scenario {args.scenario} (based on revision {base}).")
    return 0


def queue_and_wait(api, scenario_id, revision, seed, timeout, wait=True):
    body = {"seed": seed} if revision is None else {"seed": seed, "revision": revision}
    run = api.post(f"/api/scenarios/{scenario_id}/runs/", body)
    if not wait:
        return run
    return api.wait_for_run(run["url"], timeout)


def failed_run(run):
    raise ClientError(f"run {run['id']} failed: {run.get('error') or 'no reason given'}")


def cmd_run(args):
    api = api_for(args)
    run = queue_and_wait(api, args.scenario, args.revision, args.seed, args.timeout, wait=args.wait)
    if not args.wait:
        out(args, run, f"Queued run {run['id']} of scenario {args.scenario}: {run['url']}")
        return 0
    if run["status"] == "failed":
        failed_run(run)
    summary = report.summarize(run.get("result") or {})
    title = f"Run {run['id']} of scenario {args.scenario} r{run['revision']} (seed {run['params'].get('seed', 0)}): succeeded"
    out(args, {"run": run["id"], "scenario": args.scenario, "revision": run["revision"], "status": run["status"],
               **summary}, report.text(summary, title))
    return 0


def find_or_create(api, args, manifests, config_text):
    """(scenario id, revision to run): push to --scenario, or to --team's scenario named --name, or create it."""
    name = args.name or Path(args.file[0]).stem
    if args.scenario is not None:
        scenario = api.get(f"/api/scenarios/{args.scenario}/")
    else:
        matches = [s for s in all_pages(api, "/api/scenarios/" + query({"team": args.team, "search": name}))
                   if s["name"] == name]
        if not matches:
            created = api.post("/api/scenarios/", {"team": args.team, "name": name, "manifests": manifests,
                                                   "config": config_text, "message": "Created by whatif check"})
            return created["id"], created["current_revision"]
        scenario = api.get(f"/api/scenarios/{matches[0]['id']}/")
    if scenario["manifests"] == manifests and scenario["config"] == config_text:
        return scenario["id"], scenario["current_revision"]  # nothing changed: no new revision
    revision = push_revision(api, scenario["id"], manifests, config_text, scenario["current_revision"],
                             "Pushed by whatif check")
    return scenario["id"], revision["number"]


def cmd_check(args):
    manifests, filename = read_files(args.file)
    config_text = read_config(args.config)
    if args.local:
        result = local.simulate(manifests, filename, config_text or None, args.config or "config.yaml", args.seed)
        where, meta = f"{filename} (local engine, seed {args.seed})", {"local": True}
    else:
        if args.scenario is None and not args.team:
            raise ClientError("say where to run: --scenario ID, --team TEAM [--name NAME], or --local")
        api = api_for(args)
        scenario_id, number = find_or_create(api, args, manifests, config_text)
        run = queue_and_wait(api, scenario_id, number, args.seed, args.timeout)
        if run["status"] == "failed":
            failed_run(run)
        result = run.get("result") or {}
        where = f"scenario {scenario_id} r{number}, run {run['id']} (seed {args.seed})"
        meta = {"scenario": scenario_id, "revision": number, "run": run["id"], "url": run["url"]}
    known = {c.get("topologyKey") for c in result.get("spreadConstraints") or []}
    unknown = [k for k in args.spread if k not in known]
    if unknown:
        raise ClientError(f"no pod has a topology spread constraint on {', '.join(unknown)}"
                          + (f"; keys in use: {', '.join(sorted(known))}" if known else ""))
    summary = report.summarize(result, args.spread)
    if args.spread and summary["pending"] and not result.get("explanations"):
        raise ClientError("the result explains no pending pod (the server runs with RUN_DETAIL=none), "
                          "so --spread cannot be checked; use --local, or ask for RUN_DETAIL=failed")
    passed, reasons = report.verdict(summary, args.allow_pending)
    if args.junit:
        try:
            Path(args.junit).write_text(report.junit(summary, "whatif check", args.allow_pending), encoding="utf-8")
        except OSError as e:
            raise ClientError(f"{args.junit}: cannot write the JUnit report: {e.strerror or e}")
    verdict = "PASSED" if passed else "FAILED: " + "; ".join(reasons)
    out(args, {**meta, "passed": passed, "reasons": reasons, **summary},
        report.text(summary, f"Check of {where}") + f"\n{verdict}")
    return 0 if passed else 1


def cmd_export(args):
    api = api_for(args)
    if args.csv:
        sys.stdout.write(api.get(f"/api/runs/{args.run}/export.csv", raw=True))
        return 0
    print(json.dumps(api.get(f"/api/runs/{args.run}/export.json"), indent=2))
    return 0


def analysis_spec(args):
    if args.kind == "capacity":
        spec = {"extraZones": args.extra_zone}
        if args.templates:
            try:
                spec["templates"] = json.loads(read_files([args.templates], "templates file")[0])
            except json.JSONDecodeError as e:
                raise ClientError(f"{args.templates}: not JSON ({e.msg} at line {e.lineno})") from None
        return spec
    if args.kind == "replicas":
        if not args.pod:
            raise ClientError("replicas needs --pod namespace/name")
        return {"pod": args.pod}
    if args.kind == "drain":
        if not args.node:
            raise ClientError("drain needs at least one --node")
        return {"nodes": args.node}
    if args.kind == "tuning" and args.strategy:
        return {"candidates": [{"strategy": s} for s in args.strategy]}
    return {}


def analysis_text(a):
    lines = [f"Analysis {a['id']} ({a['kind']}) of scenario {a['scenario']} r{a['revision']}, seed {a['seed']}: "
             f"{a['status']}" + (f", {a['progress']['done']} of {a['progress']['total']} parts done"
                                  if a["status"] in ("queued", "running") else "")]
    answer = a.get("answer") or {}
    if a["status"] == "failed":
        lines.append(f"error: {a['error']}")
    if answer.get("sentence"):
        lines.append(answer["sentence"][0].upper() + answer["sentence"][1:] + ".")
    for row in answer.get("rows") or ():
        lines.append(f"  {row['target']}: {'survives' if row['survives'] else 'does not survive'}; "
                     f"{len(row['leftPending'])} running pods left pending; blocked by PDB: "
                     f"{', '.join(sorted({k for b in row['blocked'] for k in b['pdbs']})) or 'none'}; "
                     f"spread over maxSkew: {'; '.join(row['spreadViolated']) or 'none'}")
    for r in answer.get("runs") or ():
        lines.append(f"  {r['candidate']['name']}: cpu {r['cpu']['min']:.2f}-{r['cpu']['max']:.2f} "
                     f"(stddev {r['cpu']['stddev']:.3f}), memory {r['memory']['min']:.2f}-{r['memory']['max']:.2f} "
                     f"(stddev {r['memory']['stddev']:.3f}), {r['nodesUsed']} nodes used, {r['pending']} pending")
    if a.get("verifying_run"):
        lines.append(f"Checked by run {a['verifying_run']}.")
    return "\n".join(lines)


def cmd_analyse(args):
    api = api_for(args)
    a = api.post(f"/api/scenarios/{args.scenario}/analyses/",
                 {"kind": args.kind, "spec": analysis_spec(args), "seed": args.seed})
    if args.wait:
        a = api.wait_for(a["url"], args.timeout, ("succeeded", "failed", "cancelled"), on_poll=lambda x: print(
            f"{x['progress']['done']} of {x['progress']['total']} parts done", file=sys.stderr))
    out(args, a, analysis_text(a) if args.wait else f"Started analysis {a['id']}: {a['url']}")
    return 2 if a["status"] == "failed" else 0


def cmd_analysis(args):
    a = api_for(args).get(f"/api/analyses/{args.analysis}/")
    out(args, a, analysis_text(a))
    return 0


def cmd_cancel_analysis(args):
    a = api_for(args).post(f"/api/analyses/{args.analysis}/cancel/")
    out(args, a, f"Cancelled analysis {a['id']}: {a['progress']['done']} of {a['progress']['total']} parts done.")
    return 0


COMMANDS = {"login": cmd_login, "scenarios": cmd_scenarios, "push": cmd_push, "run": cmd_run,
            "check": cmd_check, "export": cmd_export, "analyse": cmd_analyse, "analysis": cmd_analysis,
            "cancel-analysis": cmd_cancel_analysis}
