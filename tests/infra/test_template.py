"""The packaged template: valid SAM and CloudFormation, one function per area, the infrastructure wired in."""
from __future__ import annotations

import json
import re
import subprocess
import sys

from chalicelib.areas import AREAS

from .conftest import ROOT


def functions(template: dict) -> dict:
    return {name: r for name, r in template["Resources"].items() if r["Type"] == "AWS::Serverless::Function"}


def modules_of(resource: dict) -> list[str]:
    value = resource["Properties"].get("Environment", {}).get("Variables", {}).get("WMS_MODULES", "")
    return [name.strip() for name in value.split(",") if name.strip()]


def integration_function(operation: dict) -> str:
    uri = operation["x-amazon-apigateway-integration"]["uri"]["Fn::Sub"]
    match = re.search(r"functions/\$\{(\w+)\.Arn\}/invocations$", uri)
    assert match, uri
    return match.group(1)


def test_translates_with_samtranslator(translated):
    resources = translated["Resources"]
    kinds = {r["Type"] for r in resources.values()}
    assert "AWS::Serverless::Function" not in kinds
    lambdas = [name for name, r in resources.items() if r["Type"] == "AWS::Lambda::Function"]
    assert len(lambdas) >= len(AREAS) + 1  # one per area and the migrations function


def test_cfn_lint_reports_no_errors(packaged):
    command = [sys.executable, "-c", "import sys; from cfnlint.runner import main; sys.exit(main())",
               "--format", "parseable", str(packaged / "sam.json")]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300)
    errors = [line for line in result.stdout.splitlines() if re.search(r":E\d{4}:", line)]
    assert not errors, "\n".join(errors)
    assert result.returncode & 3 == 0, f"cfn-lint failed ({result.returncode}):\n{result.stdout}\n{result.stderr}"


def test_chalice_single_handler_is_gone(template):
    assert "APIHandler" not in template["Resources"]
    assert "APIHandler" not in json.dumps(template)


def test_every_area_has_its_own_api_function(template):
    config = json.loads((ROOT / "infra" / "areas.json").read_text())
    api = {name: r for name, r in functions(template).items() if r["Properties"]["Handler"] == "app.app"}
    by_area = {}
    for name, resource in api.items():
        areas = modules_of(resource)
        assert len(areas) == 1, f"{name} serves {areas}"
        assert areas[0] not in by_area, f"two functions serve {areas[0]}"
        by_area[areas[0]] = (name, resource["Properties"])
    assert set(by_area) == set(AREAS)
    code = {props["CodeUri"] for _, props in by_area.values()}
    assert len(code) == 1, "every area's function runs the same bundle"
    for area, (name, props) in by_area.items():
        own = {**config["defaults"], **config.get("areas", {}).get(area, {})}
        assert props["MemorySize"] == own["memory"]
        assert props["Timeout"] == own["timeout"]
        assert props["ReservedConcurrentExecutions"] == {
            "Fn::If": ["UseReservedConcurrency", own["reserved_concurrency"], {"Ref": "AWS::NoValue"}]}


def test_every_function_has_a_log_group_with_retention_and_an_errors_alarm(template):
    resources = template["Resources"]
    groups = {json.dumps(r["Properties"]["LogGroupName"]): r["Properties"] for r in resources.values()
              if r["Type"] == "AWS::Logs::LogGroup"}
    alarms = [r["Properties"] for r in resources.values()
              if r["Type"] == "AWS::CloudWatch::Alarm" and r["Properties"].get("MetricName") == "Errors"]
    for name in functions(template):
        group = groups.get(json.dumps({"Fn::Sub": "/aws/lambda/${%s}" % name}))
        assert group and group["RetentionInDays"] > 0, name
        assert any(a["Dimensions"] == [{"Name": "FunctionName", "Value": {"Ref": name}}] for a in alarms), name


def test_one_invoke_permission_per_api_function(template):
    resources = template["Resources"]
    api = [name for name, r in functions(template).items() if r["Properties"]["Handler"] == "app.app"]
    permissions = [r["Properties"] for r in resources.values() if r["Type"] == "AWS::Lambda::Permission"]
    for name in api:
        mine = [p for p in permissions if p["FunctionName"] == {"Ref": name}]
        assert len(mine) == 1, name
        assert mine[0]["Principal"] == "apigateway.amazonaws.com"
        assert mine[0]["Action"] == "lambda:InvokeFunction"
        assert mine[0]["SourceArn"]["Fn::Sub"][1] == {"RestAPIId": {"Ref": "RestAPI"}}


def test_event_functions_belong_to_their_area_and_queues_report_partial_failures(template, isolated):
    resources = template["Resources"]
    handler_area = {h: area for area, probe in isolated.items() if area for h in probe["handlers"]}
    events = {name: r for name, r in functions(template).items()
              if r["Properties"]["Handler"] not in ("app.app", "chalicelib.migrations.deploy.handler")}
    assert set(handler_area) == {r["Properties"]["Handler"] for r in events.values()}
    for name, resource in events.items():
        assert modules_of(resource) == [handler_area[resource["Properties"]["Handler"]]], name
        for event in resource["Properties"].get("Events", {}).values():
            if event["Type"] != "SQS":
                continue
            props = event["Properties"]
            assert props["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
            queue_id = props["Queue"]["Fn::GetAtt"][0]
            queue = resources[queue_id]["Properties"]
            assert queue["RedrivePolicy"]["maxReceiveCount"] == 5
            dead = queue["RedrivePolicy"]["deadLetterTargetArn"]["Fn::GetAtt"][0]
            assert resources[dead]["Type"] == "AWS::SQS::Queue"
            assert queue["VisibilityTimeout"] >= resource["Properties"]["Timeout"]


def test_every_function_gets_the_runtime_settings_and_the_network(translated):
    expected = {"DATABASE_URL", "UPLOADS_BUCKET", "NOTIFICATIONS_QUEUE_URL", "SECRETS_KEY", "AUTH_JWKS_URL",
                "AUTH_ISSUER", "AUTH_AUDIENCE", "WMS_DATA_DIR", "PUBLIC_BASE_URL"}
    lambdas = {name: r["Properties"] for name, r in translated["Resources"].items() if r["Type"] == "AWS::Lambda::Function"}
    for name, props in lambdas.items():
        variables = props["Environment"]["Variables"]
        assert expected <= set(variables), (name, expected - set(variables))
        assert "${DatabaseProxy.Endpoint}" in variables["DATABASE_URL"]["Fn::Sub"]
        assert "{{resolve:secretsmanager:${DatabaseSecret}:SecretString:password}}" in variables["DATABASE_URL"]["Fn::Sub"]
        assert variables["SECRETS_KEY"] == {"Fn::Sub": "kms:${CredentialsKey}"}
        assert variables["AUTH_JWKS_URL"] == {"Ref": "AuthJwksUrl"}
        assert variables["PUBLIC_BASE_URL"] == {"Ref": "PublicBaseUrl"}, name
        assert props["VpcConfig"]["SubnetIds"] == [{"Ref": "PrivateSubnetA"}, {"Ref": "PrivateSubnetB"}]
        if props["Handler"] == "app.app":
            assert props["ReservedConcurrentExecutions"]["Fn::If"][0] == "UseReservedConcurrency", name


def test_roles_carry_the_function_policy_and_vpc_access(template):
    resources = template["Resources"]
    roles = {r["Properties"]["Role"]["Fn::GetAtt"][0] for r in functions(template).values()}
    for role in roles:
        arns = resources[role]["Properties"]["ManagedPolicyArns"]
        assert {"Ref": "FunctionPolicy"} in arns
        assert any("AWSLambdaVPCAccessExecutionRole" in json.dumps(arn) for arn in arns)
    statements = {s["Sid"]: s for s in resources["FunctionPolicy"]["Properties"]["PolicyDocument"]["Statement"]}
    assert "s3:PutObject" in statements["UploadsObjects"]["Action"]
    assert "sqs:SendMessage" in statements["NotificationsQueue"]["Action"]
    assert "kms:Decrypt" in statements["CredentialsKey"]["Action"]
    assert "ses:SendRawEmail" in statements["SendMail"]["Action"]
    assert statements["ServiceSecrets"]["Action"] == "secretsmanager:GetSecretValue"


def test_infrastructure_resources(template):
    resources = template["Resources"]
    bucket = resources["UploadsBucket"]["Properties"]
    assert all(bucket["PublicAccessBlockConfiguration"].values())
    assert bucket["BucketEncryption"]["ServerSideEncryptionConfiguration"][0]["ServerSideEncryptionByDefault"]
    endpoints = {r["Properties"]["ServiceName"]["Fn::Sub"].rsplit(".", 1)[1] for r in resources.values()
                 if r["Type"] == "AWS::EC2::VPCEndpoint"}
    assert {"s3", "sqs", "secretsmanager"} <= endpoints
    cluster = resources["DatabaseCluster"]["Properties"]
    assert cluster["Engine"] == "aurora-postgresql"
    assert cluster["ServerlessV2ScalingConfiguration"] == {"MinCapacity": {"Ref": "DatabaseMinCapacity"},
                                                           "MaxCapacity": {"Ref": "DatabaseMaxCapacity"}}
    assert resources["DatabaseInstance"]["Properties"]["DBInstanceClass"] == "db.serverless"
    proxy = resources["DatabaseProxy"]["Properties"]
    assert proxy["RequireTLS"] is True and proxy["Auth"][0]["SecretArn"] == {"Ref": "DatabaseSecret"}
    assert resources["CredentialsKey"]["Type"] == "AWS::KMS::Key"
    dlq_alarm = resources["NotificationsDeadLetterAlarm"]["Properties"]
    assert dlq_alarm["Dimensions"][0]["Value"] == {"Fn::GetAtt": ["NotificationsDeadLetterQueue", "QueueName"]}
    for name in ("Stage", "AuthJwksUrl", "AuthIssuer", "AuthAudience", "DatabaseMinCapacity", "DatabaseMaxCapacity"):
        assert name in template["Parameters"]


def test_migrations_run_through_a_custom_resource_before_the_code_changes(template):
    resources = template["Resources"]
    function = resources["MigrationsFunction"]["Properties"]
    assert function["Handler"] == "chalicelib.migrations.deploy.handler"
    custom = resources["Migrations"]
    assert custom["Properties"]["ServiceToken"] == {"Fn::GetAtt": ["MigrationsFunction", "Arn"]}
    assert re.fullmatch(r"[0-9a-f]{16}", custom["Properties"]["Fingerprint"])
    assert "DatabaseProxyTargetGroup" in custom["DependsOn"]
    for name, resource in functions(template).items():
        if name != "MigrationsFunction":
            assert "Migrations" in resource["DependsOn"], name


def test_gateway_answers_carry_the_error_body_and_never_echo_the_authorization_header(template):
    import json as jsonlib

    responses = {r["Properties"]["ResponseType"]: r["Properties"] for r in template["Resources"].values()
                 if r["Type"] == "AWS::ApiGateway::GatewayResponse"}
    for kind in ("MISSING_AUTHENTICATION_TOKEN", "DEFAULT_4XX", "DEFAULT_5XX", "THROTTLED", "REQUEST_TOO_LARGE",
                 "INTEGRATION_TIMEOUT", "UNAUTHORIZED", "ACCESS_DENIED"):
        assert kind in responses, kind
    assert responses["MISSING_AUTHENTICATION_TOKEN"]["StatusCode"] == "404"  # an unknown route is a 404
    for kind, props in responses.items():
        assert props["RestApiId"] == {"Ref": "RestAPI"}
        body = props["ResponseTemplates"]["application/json"]
        assert "$context" not in body and "Authorization" not in body, kind  # fixed text, nothing echoed
        assert set(jsonlib.loads(body)) == {"error"}
        assert props["ResponseParameters"]["gatewayresponse.header.Content-Type"] == "'application/json'"


def test_provider_secrets_come_from_secrets_manager(template):
    secret = template["Resources"]["ProviderSecrets"]
    assert secret["Type"] == "AWS::SecretsManager::Secret"
    variables = template["Globals"]["Function"]["Environment"]["Variables"]
    assert variables["PROVIDER_SECRETS_ID"] == {"Ref": "ProviderSecrets"}
    for name in ("AI_API_KEY", "CHAT_BOT_TOKEN", "VAPID_PRIVATE_KEY"):
        assert name not in variables


def test_public_base_url_is_a_required_https_parameter(template):
    """PUBLIC_BASE_URL's default (http://127.0.0.1:8000) is no production value: the cookie-write origins, notice
    links and the agent runner's callback_url come from it, so the stack takes it as a required https parameter."""
    parameter = template["Parameters"]["PublicBaseUrl"]
    assert parameter["Type"] == "String"
    assert "Default" not in parameter  # required: a deploy without it is refused by CloudFormation
    pattern = re.compile(parameter["AllowedPattern"])
    for good in ("https://wms.example.com", "https://wms.example.com/", "https://example.com/wms"):
        assert pattern.fullmatch(good), good
    for bad in ("http://127.0.0.1:8000", "http://wms.example.com", "wms.example.com", "https://", "https:///x",
                "https://wms.example.com /"):
        assert not pattern.fullmatch(bad), bad
    assert template["Globals"]["Function"]["Environment"]["Variables"]["PUBLIC_BASE_URL"] == {"Ref": "PublicBaseUrl"}
    for name, resource in functions(template).items():  # no function overrides it with a stage value
        own = resource["Properties"].get("Environment", {}).get("Variables", {})
        assert own.get("PUBLIC_BASE_URL", {"Ref": "PublicBaseUrl"}) == {"Ref": "PublicBaseUrl"}, name
