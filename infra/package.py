"""Build the deployable SAM template: `chalice package`, then one Lambda function per area.

    python infra/package.py --stage prod --output build/prod

1. `infra/resources.yaml` (CloudFormation YAML) is converted to JSON and passed to
   `chalice package --merge-template`; Chalice writes `sam.json` and `deployment.zip`.
2. Each area's blueprint is registered alone into a fresh `Chalice` app; its `routes` and event
   sources say which area owns which route and which scheduled/queue function (no hand-kept list).
3. `sam.json` is rewritten: Chalice's single `APIHandler` becomes one function per area
   (`Api<Area>`, same code bundle, handler `app.app`, `WMS_MODULES=<area>`, sizes from
   `infra/areas.json`), each API Gateway integration points at its area's function, one invoke
   permission per function; scheduled and queue functions get `WMS_MODULES` of their area, queue
   event sources report partial batch failures and read the queue that `resources.yaml` creates;
   every function gets a log group with retention and an errors alarm; a migrations function runs
   Alembic through a custom resource whenever the migration files change.

No AWS credentials are needed (Chalice needs a region name only).
"""
from __future__ import annotations

import argparse
import copy
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
INFRA = ROOT / "infra"
API_HANDLER = "APIHandler"
VPC_ACCESS_POLICY = {"Fn::Sub": "arn:${AWS::Partition}:iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole"}
MIGRATIONS_HANDLER = "chalicelib.migrations.deploy.handler"
INTEGRATION_URI = "arn:${AWS::Partition}:apigateway:${AWS::Region}:lambda:path/2015-03-31/functions/${%s.Arn}/invocations"
SWAGGER_METHODS = {"get", "put", "post", "delete", "patch", "head", "options", "x-amazon-apigateway-any-method"}


class PackageError(RuntimeError):
    pass


# ------------------------------------------------------------------ CloudFormation YAML

def load_cfn_yaml(path: Path) -> dict:
    """Load a CloudFormation YAML file, turning short intrinsic tags (!Ref, !Sub, ...) into JSON form."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    def construct(tag: str):
        name = "Ref" if tag == "Ref" else ("Condition" if tag == "Condition" else f"Fn::{tag}")

        def build(loader, node):
            if isinstance(node, yaml.ScalarNode):
                value: Any = loader.construct_scalar(node)
                if tag == "GetAtt":
                    value = value.split(".", 1)
            elif isinstance(node, yaml.SequenceNode):
                value = loader.construct_sequence(node, deep=True)
            else:
                value = loader.construct_mapping(node, deep=True)
            return {name: value}

        return build

    for tag in ("Ref", "Condition", "Sub", "GetAtt", "If", "Equals", "Not", "And", "Or", "Join", "Select",
                "Split", "GetAZs", "FindInMap", "Base64", "Cidr", "ImportValue", "Transform", "Length",
                "ToJsonString"):
        Loader.add_constructor(f"!{tag}", construct(tag))
    return yaml.load(path.read_text(), Loader=Loader)  # noqa: S506 (SafeLoader subclass)


# ------------------------------------------------------------------ who owns what

def camel(area: str) -> str:
    return "".join(part.capitalize() for part in re.split(r"[_\W]+", area) if part)


def ownership() -> dict:
    """Register each area's blueprint alone into a fresh Chalice app; read its routes and event sources.

    Returns {"routes": {(path, METHOD): area}, "handlers": {handler_string: area}, "areas": [...]}.
    """
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from chalice import Chalice

    from chalicelib.areas import AREAS, load_blueprint

    routes: dict[tuple[str, str], str] = {}
    handlers: dict[str, str] = {}
    for area in AREAS:
        probe = Chalice(app_name=f"probe-{area}")
        probe.register_blueprint(load_blueprint(area))
        for path, methods in probe.routes.items():
            for method in methods:
                key = (path, method.upper())
                if key in routes:
                    raise PackageError(f"{key[1]} {key[0]} is registered by two areas: {routes[key]} and {area}")
                routes[key] = area
        sources = list(probe.event_sources) + list(getattr(probe, "pure_lambda_functions", []))
        for source in sources:
            handlers[source.handler_string] = area
    return {"routes": routes, "handlers": handlers, "areas": list(AREAS)}


# ------------------------------------------------------------------ settings

def area_settings(config: dict, area: str) -> dict:
    defaults = config.get("defaults", {})
    own = config.get("areas", {}).get(area, {})
    merged = {**defaults, **own}
    merged["jobs"] = {**defaults.get("jobs", {}), **own.get("jobs", {})}
    for key in ("memory", "timeout", "log_retention_days"):
        if key not in merged:
            raise PackageError(f"infra/areas.json: no {key!r} for area {area!r} and no default")
    return merged


def migrations_fingerprint() -> str:
    """Changes whenever a migration file changes, so that the custom resource runs again."""
    digest = hashlib.sha256()
    folder = ROOT / "chalicelib" / "migrations"
    for path in sorted(folder.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        digest.update(str(path.relative_to(folder)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


# ------------------------------------------------------------------ template rewrite

def _references(value: Any, name: str) -> bool:
    text = json.dumps(value)
    needles = (f'"Ref": "{name}"', f'["{name}",', "${%s." % name, "${%s}" % name)
    return any(needle in text for needle in needles)


def _log_group(function_id: str, days: int) -> dict:
    return {
        "Type": "AWS::Logs::LogGroup",
        "Properties": {"LogGroupName": {"Fn::Sub": "/aws/lambda/${%s}" % function_id}, "RetentionInDays": days},
    }


def _errors_alarm(function_id: str, threshold: int) -> dict:
    return {
        "Type": "AWS::CloudWatch::Alarm",
        "Properties": {
            "AlarmName": {"Fn::Sub": "wms-${Stage}-%s-errors" % function_id},
            "AlarmDescription": f"Errors of the {function_id} function",
            "Namespace": "AWS/Lambda",
            "MetricName": "Errors",
            "Dimensions": [{"Name": "FunctionName", "Value": {"Ref": function_id}}],
            "Statistic": "Sum",
            "Period": 300,
            "EvaluationPeriods": 1,
            "Threshold": threshold,
            "ComparisonOperator": "GreaterThanOrEqualToThreshold",
            "TreatMissingData": "notBreaching",
            "AlarmActions": [{"Ref": "AlarmTopic"}],
        },
    }


def _set_env(props: dict, **values: str) -> None:
    variables = props.setdefault("Environment", {}).setdefault("Variables", {})
    variables.update(values)


def _reserved(value: int | None) -> Any:
    if value is None:
        return None
    return {"Fn::If": ["UseReservedConcurrency", value, {"Ref": "AWS::NoValue"}]}


def _add_observability(resources: dict, function_id: str, settings: dict) -> None:
    # Drop a log group Chalice may have emitted for this function (log_retention_in_days).
    for name, resource in list(resources.items()):
        if resource.get("Type") == "AWS::Logs::LogGroup" and name != f"{function_id}LogGroup":
            group = resource.get("Properties", {}).get("LogGroupName")
            if group == {"Fn::Sub": "/aws/lambda/${%s}" % function_id}:
                del resources[name]
    resources[f"{function_id}LogGroup"] = _log_group(function_id, int(settings["log_retention_days"]))
    resources[f"{function_id}ErrorsAlarm"] = _errors_alarm(function_id, int(settings.get("errors_alarm_threshold", 1)))


def _queue_name(queue: Any) -> str | None:
    """The queue name of Chalice's `Fn::Sub arn:...:sqs:...:<name>` (or a literal ARN)."""
    if isinstance(queue, dict) and "Fn::Sub" in queue and isinstance(queue["Fn::Sub"], str):
        return queue["Fn::Sub"].rsplit(":", 1)[-1]
    if isinstance(queue, str) and queue.startswith("arn:"):
        return queue.rsplit(":", 1)[-1]
    return None


def split_template(template: dict, owners: dict, config: dict, fingerprint: str) -> dict:
    """Rewrite Chalice's SAM template in place: one function per area, and the rest (see module doc)."""
    resources = template["Resources"]
    handler = resources.get(API_HANDLER)
    if handler is None:
        raise PackageError("chalice package produced no APIHandler: the app has no routes")
    base = handler["Properties"]
    areas = owners["areas"]
    settings = {area: area_settings(config, area) for area in areas}
    unknown = sorted(set(config.get("areas", {})) - set(areas))
    if unknown:
        raise PackageError(f"infra/areas.json lists areas that do not exist: {', '.join(unknown)}")

    # 1. one API function per area
    function_of: dict[str, str] = {}
    for area in areas:
        function_id = f"Api{camel(area)}"
        if function_id in resources:
            raise PackageError(f"resource name {function_id} is already taken")
        own = settings[area]
        props = copy.deepcopy(base)
        props["MemorySize"] = int(own["memory"])
        props["Timeout"] = int(own["timeout"])
        props["Description"] = f"WMS API: {area}"
        props.setdefault("Tags", {})["wms-area"] = area
        _set_env(props, WMS_MODULES=area)
        reserved = _reserved(own.get("reserved_concurrency"))
        props.pop("ReservedConcurrentExecutions", None)
        if reserved is not None:
            props["ReservedConcurrentExecutions"] = reserved
        resources[function_id] = {"Type": "AWS::Serverless::Function", "Properties": props}
        resources[f"{function_id}InvokePermission"] = {
            "Type": "AWS::Lambda::Permission",
            "Properties": {
                "FunctionName": {"Ref": function_id},
                "Action": "lambda:InvokeFunction",
                "Principal": "apigateway.amazonaws.com",
                "SourceArn": {"Fn::Sub": ["arn:${AWS::Partition}:execute-api:${AWS::Region}:${AWS::AccountId}:${RestAPIId}/*",
                                          {"RestAPIId": {"Ref": "RestAPI"}}]},
            },
        }
        _add_observability(resources, function_id, own)
        function_of[area] = function_id

    # 2. every API Gateway integration at its area's function
    paths = resources["RestAPI"]["Properties"]["DefinitionBody"]["paths"]
    seen: set[tuple[str, str]] = set()
    for path, operations in paths.items():
        for method, operation in operations.items():
            if method not in SWAGGER_METHODS:
                continue
            integration = operation.get("x-amazon-apigateway-integration", {})
            if integration.get("type") != "aws_proxy":
                continue  # CORS preflight (mock) and the like
            key = (path, "ANY" if method == "x-amazon-apigateway-any-method" else method.upper())
            area = owners["routes"].get(key)
            if area is None:
                raise PackageError(f"{key[1]} {key[0]} is in the template but in no area's blueprint")
            integration["uri"] = {"Fn::Sub": INTEGRATION_URI % function_of[area]}
            seen.add(key)
    missing = sorted(set(owners["routes"]) - seen)
    if missing:
        raise PackageError(f"routes missing from Chalice's template: {missing}")

    # 3. scheduled and queue functions: their area, sizes, partial batch failures, our queues
    queues = config.get("queues", {})
    for name, resource in list(resources.items()):
        if resource.get("Type") != "AWS::Serverless::Function" or name == API_HANDLER or name in function_of.values():
            continue
        props = resource["Properties"]
        area = owners["handlers"].get(props.get("Handler"))
        if area is None:
            raise PackageError(f"function {name} (handler {props.get('Handler')}) belongs to no area")
        jobs = settings[area]["jobs"]
        props["MemorySize"] = int(jobs.get("memory", settings[area]["memory"]))
        props["Timeout"] = int(jobs.get("timeout", settings[area]["timeout"]))
        if jobs.get("reserved_concurrency") is not None:
            props["ReservedConcurrentExecutions"] = _reserved(jobs["reserved_concurrency"])
        props["Description"] = f"WMS {area}: {props.get('Handler')}"
        props.setdefault("Tags", {})["wms-area"] = area
        _set_env(props, WMS_MODULES=area)
        for event in (props.get("Events") or {}).values():
            if event.get("Type") != "SQS":
                continue
            event_props = event["Properties"]
            event_props["FunctionResponseTypes"] = ["ReportBatchItemFailures"]
            if jobs.get("max_concurrency") is not None:  # SQS scales a queue's function to hundreds otherwise
                most = int(jobs["max_concurrency"])
                if not 2 <= most <= 1000:  # Lambda's bounds: a deploy would fail on any other value
                    raise PackageError(f"{area}: jobs.max_concurrency must be 2 to 1000, not {most}")
                event_props["ScalingConfig"] = {"MaximumConcurrency": most}
            queue_name = _queue_name(event_props.get("Queue"))
            if queue_name in queues:
                queue_id = queues[queue_name]
                event_props["Queue"] = {"Fn::GetAtt": [queue_id, "Arn"]}
                visibility = resources.get(queue_id, {}).get("Properties", {}).get("VisibilityTimeout", 30)
                if isinstance(visibility, int) and visibility < props["Timeout"]:
                    raise PackageError(f"{queue_id} VisibilityTimeout ({visibility}s) is shorter than the timeout "
                                       f"of {name} ({props['Timeout']}s): Lambda refuses such an event source")
            elif queue_name is not None:
                raise PackageError(f"function {name} reads queue {queue_name!r}, which infra/ does not create: "
                                   "add it to infra/resources.yaml and to 'queues' in infra/areas.json")
        _add_observability(resources, name, {**settings[area], **jobs})

    # 4. the migrations function and the custom resource that runs it on every change
    migrations = {**config.get("defaults", {}), **config.get("migrations", {})}
    props = {key: copy.deepcopy(base[key]) for key in ("Runtime", "CodeUri", "Architectures", "Role", "Tracing", "Environment")
             if key in base}
    props.update(Handler=MIGRATIONS_HANDLER, MemorySize=int(migrations["memory"]), Timeout=int(migrations["timeout"]),
                 Description="WMS: applies Alembic migrations (custom resource, or invoke by hand)")
    props["Tags"] = {**base.get("Tags", {}), "wms-area": "migrations"}
    resources["MigrationsFunction"] = {"Type": "AWS::Serverless::Function", "Properties": props}
    _add_observability(resources, "MigrationsFunction", migrations)
    depends = [name for name in ("DatabaseProxyTargetGroup", "DatabaseInstance", "S3Endpoint") if name in resources]
    resources["Migrations"] = {
        "Type": "Custom::Migrations",
        "DependsOn": depends + ["MigrationsFunctionLogGroup"],
        "Properties": {"ServiceToken": {"Fn::GetAtt": ["MigrationsFunction", "Arn"]}, "Fingerprint": fingerprint},
    }

    # New code goes live only after its migrations ran (the custom resource updates first).
    for name in list(function_of.values()) + [n for n, r in resources.items()
                                               if r.get("Type") == "AWS::Serverless::Function"
                                               and n not in (API_HANDLER, "MigrationsFunction")
                                               and n not in function_of.values()]:
        resource = resources[name]
        depends = resource.get("DependsOn", [])
        depends = [depends] if isinstance(depends, str) else list(depends)
        if "Migrations" not in depends:
            resource["DependsOn"] = depends + ["Migrations"]

    # 5. drop Chalice's single handler
    del resources[API_HANDLER]
    resources.pop(f"{API_HANDLER}InvokePermission", None)
    outputs = template.setdefault("Outputs", {})
    for key in [key for key, value in outputs.items() if _references(value, API_HANDLER)]:
        del outputs[key]
    outputs["MigrationsFunctionName"] = {"Value": {"Ref": "MigrationsFunction"}}
    for area, function_id in function_of.items():
        outputs[f"{function_id}Name"] = {"Value": {"Ref": function_id}}
    if _references(template, API_HANDLER):
        raise PackageError("the template still refers to APIHandler")

    # 6. the functions' permissions (resources.yaml) on every Lambda role Chalice generated
    for resource in resources.values():
        if resource.get("Type") != "AWS::IAM::Role":
            continue
        trust = json.dumps(resource["Properties"].get("AssumeRolePolicyDocument", {}))
        if "lambda.amazonaws.com" not in trust:
            continue
        arns = resource["Properties"].setdefault("ManagedPolicyArns", [])
        for arn in ({"Ref": "FunctionPolicy"}, VPC_ACCESS_POLICY):
            if arn not in arns:
                arns.append(arn)
    return template


# ------------------------------------------------------------------ driver

def chalice_package(stage: str, output: Path, merge_template: Path) -> None:
    env = {key: value for key, value in os.environ.items() if key != "WMS_MODULES"}
    env.setdefault("AWS_DEFAULT_REGION", env.get("AWS_REGION", "us-east-1"))
    chalice = Path(sys.executable).with_name("chalice")
    command = [str(chalice) if chalice.exists() else "chalice", "package", "--stage", stage,
               "--merge-template", str(merge_template), str(output)]
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        raise PackageError(f"chalice package failed ({result.returncode}):\n{result.stdout}\n{result.stderr}")


def build(stage: str, output: Path) -> Path:
    output = output if output.is_absolute() else ROOT / output
    if output.exists():
        shutil.rmtree(output)
    os.environ.setdefault("WMS_DATA_DIR", tempfile.mkdtemp(prefix="wms-package-"))
    os.environ.pop("WMS_MODULES", None)
    sys.path.insert(0, str(ROOT))
    from chalicelib.core.version import BUILD_INFO, git_commit, write_build_info

    write_build_info(os.environ.get("WMS_COMMIT") or git_commit(ROOT) or "unknown")  # bundled: GET /api/version
    with tempfile.TemporaryDirectory(prefix="wms-merge-") as folder:
        merge = Path(folder) / "resources.json"
        merge.write_text(json.dumps(load_cfn_yaml(INFRA / "resources.yaml"), indent=1))
        chalice_package(stage, output, merge)
    sam = output / "sam.json"
    template = json.loads(sam.read_text())
    config = json.loads((INFRA / "areas.json").read_text())
    split_template(template, ownership(), config, migrations_fingerprint())
    # compact: CloudFormation counts every byte of the template against its 1,000,000-byte limit
    sam.write_text(json.dumps(template, separators=(",", ":"), sort_keys=False) + "\n")
    return sam


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--stage", default="dev")
    parser.add_argument("--output", default=None, help="folder for sam.json and deployment.zip (build/<stage>)")
    args = parser.parse_args(argv)
    output = Path(args.output or f"build/{args.stage}")
    try:
        sam = build(args.stage, output)
    except PackageError as exc:
        print(f"package: {exc}", file=sys.stderr)
        return 1
    template = json.loads(sam.read_text())
    functions = [name for name, r in template["Resources"].items() if r["Type"] == "AWS::Serverless::Function"]
    print(f"wrote {sam.relative_to(ROOT) if sam.is_relative_to(ROOT) else sam}: {len(functions)} functions "
          f"({', '.join(functions)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
