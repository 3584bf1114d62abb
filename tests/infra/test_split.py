"""infra/package.py refuses templates it cannot split safely (fast, no chalice package)."""
from __future__ import annotations

import copy

import pytest

from .conftest import infra_package as package

URI = {"Fn::Sub": "arn:${AWS::Partition}:apigateway:${AWS::Region}:lambda:path/2015-03-31/functions/${APIHandler.Arn}/invocations"}
BASE = {
    "Resources": {
        "ApiHandlerRole": {"Type": "AWS::IAM::Role", "Properties": {
            "AssumeRolePolicyDocument": {"Statement": [{"Principal": {"Service": "lambda.amazonaws.com"}}]}}},
        "APIHandler": {"Type": "AWS::Serverless::Function", "Properties": {
            "Handler": "app.app", "CodeUri": "./deployment.zip", "Runtime": "python3.11",
            "Role": {"Fn::GetAtt": ["ApiHandlerRole", "Arn"]}, "Environment": {"Variables": {"WMS_STAGE": "prod"}}}},
        "APIHandlerInvokePermission": {"Type": "AWS::Lambda::Permission", "Properties": {"FunctionName": {"Ref": "APIHandler"}}},
        "RestAPI": {"Type": "AWS::Serverless::Api", "Properties": {"DefinitionBody": {"paths": {
            "/api/a": {"get": {"x-amazon-apigateway-integration": {"type": "aws_proxy", "uri": URI}},
                       "options": {"x-amazon-apigateway-integration": {"type": "mock"}}},
            "/api/b/{id}": {"put": {"x-amazon-apigateway-integration": {"type": "aws_proxy", "uri": URI}}},
        }}}},
        "Queue": {"Type": "AWS::SQS::Queue", "Properties": {"VisibilityTimeout": 60}},
    },
    "Outputs": {"APIHandlerArn": {"Value": {"Fn::GetAtt": ["APIHandler", "Arn"]}}},
}
OWNERS = {"routes": {("/api/a", "GET"): "alpha", ("/api/b/{id}", "PUT"): "beta_two"},
          "handlers": {"chalicelib.areas.beta_two.api.worker": "beta_two"}, "areas": ["alpha", "beta_two"]}
CONFIG = {"defaults": {"memory": 256, "timeout": 10, "log_retention_days": 7, "reserved_concurrency": 2,
                       "jobs": {"timeout": 30}},
          "areas": {"beta_two": {"memory": 1024}}, "queues": {"work": "Queue"}}


def split(template=None, owners=None, config=None):
    return package.split_template(copy.deepcopy(template or BASE), copy.deepcopy(owners or OWNERS),
                                  copy.deepcopy(config or CONFIG), "0123456789abcdef")


def with_worker(queue_arn: dict, timeout_jobs: int = 30) -> tuple[dict, dict]:
    template = copy.deepcopy(BASE)
    template["Resources"]["Worker"] = {"Type": "AWS::Serverless::Function", "Properties": {
        "Handler": "chalicelib.areas.beta_two.api.worker", "Events": {"WorkerSqs": {"Type": "SQS", "Properties": {
            "Queue": queue_arn, "BatchSize": 10}}}}}
    config = copy.deepcopy(CONFIG)
    config["defaults"]["jobs"]["timeout"] = timeout_jobs
    return template, config


def test_split_points_each_integration_at_its_area():
    out = split()
    paths = out["Resources"]["RestAPI"]["Properties"]["DefinitionBody"]["paths"]
    assert "${ApiAlpha.Arn}" in paths["/api/a"]["get"]["x-amazon-apigateway-integration"]["uri"]["Fn::Sub"]
    assert "${ApiBetaTwo.Arn}" in paths["/api/b/{id}"]["put"]["x-amazon-apigateway-integration"]["uri"]["Fn::Sub"]
    assert paths["/api/a"]["options"]["x-amazon-apigateway-integration"] == {"type": "mock"}
    assert out["Resources"]["ApiBetaTwo"]["Properties"]["MemorySize"] == 1024
    assert out["Resources"]["ApiAlpha"]["Properties"]["Environment"]["Variables"] == {"WMS_STAGE": "prod", "WMS_MODULES": "alpha"}
    assert "APIHandler" not in str(out)


def test_route_without_an_area_is_refused():
    owners = copy.deepcopy(OWNERS)
    del owners["routes"][("/api/b/{id}", "PUT")]
    with pytest.raises(package.PackageError, match="in no area"):
        split(owners=owners)


def test_route_missing_from_the_template_is_refused():
    owners = copy.deepcopy(OWNERS)
    owners["routes"][("/api/c", "GET")] = "alpha"
    with pytest.raises(package.PackageError, match="missing"):
        split(owners=owners)


def test_unknown_area_in_settings_is_refused():
    config = copy.deepcopy(CONFIG)
    config["areas"]["gamma"] = {}
    with pytest.raises(package.PackageError, match="gamma"):
        split(config=config)


def test_queue_worker_is_pointed_at_our_queue_with_partial_failures():
    template, config = with_worker({"Fn::Sub": "arn:${AWS::Partition}:sqs:${AWS::Region}:${AWS::AccountId}:work"})
    worker = split(template, config=config)["Resources"]["Worker"]["Properties"]
    event = worker["Events"]["WorkerSqs"]["Properties"]
    assert event["Queue"] == {"Fn::GetAtt": ["Queue", "Arn"]}
    assert event["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    assert worker["Environment"]["Variables"]["WMS_MODULES"] == "beta_two"
    assert worker["Timeout"] == 30


def test_queue_not_created_by_infra_is_refused():
    template, config = with_worker({"Fn::Sub": "arn:${AWS::Partition}:sqs:${AWS::Region}:${AWS::AccountId}:other"})
    with pytest.raises(package.PackageError, match="other"):
        split(template, config=config)


def test_worker_slower_than_the_queue_visibility_is_refused():
    template, config = with_worker({"Fn::Sub": "arn:${AWS::Partition}:sqs:${AWS::Region}:${AWS::AccountId}:work"}, 120)
    with pytest.raises(package.PackageError, match="VisibilityTimeout"):
        split(template, config=config)


def test_function_of_no_area_is_refused():
    template, config = with_worker({"Fn::Sub": "arn:x:work"})
    template["Resources"]["Worker"]["Properties"]["Handler"] = "chalicelib.areas.nowhere.api.worker"
    with pytest.raises(package.PackageError, match="belongs to no area"):
        split(template, config=config)


def test_cfn_yaml_short_tags_become_intrinsics(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text("A: !Ref X\nB: !GetAtt Y.Arn\nC: !Sub 'x-${Z}'\nD: !If [Cond, 1, !Ref AWS::NoValue]\n"
                    "E: !Select [0, !Cidr [!Ref V, 4, 8]]\n")
    assert package.load_cfn_yaml(path) == {
        "A": {"Ref": "X"}, "B": {"Fn::GetAtt": ["Y", "Arn"]}, "C": {"Fn::Sub": "x-${Z}"},
        "D": {"Fn::If": ["Cond", 1, {"Ref": "AWS::NoValue"}]},
        "E": {"Fn::Select": [0, {"Fn::Cidr": [{"Ref": "V"}, 4, 8]}]}}


@pytest.mark.parametrize("most,refused", [(1, True), (2, False), (1000, False), (1001, True)])
def test_a_queue_functions_max_concurrency_is_within_lambdas_bounds(most, refused):
    """`jobs.max_concurrency` becomes the SQS source's ScalingConfig.MaximumConcurrency, which Lambda takes from 2 to
    1,000: any other value would fail the deploy, so the package refuses it (session 23)."""
    template, config = with_worker({"Fn::Sub": "arn:${AWS::Partition}:sqs:${AWS::Region}:${AWS::AccountId}:work"})
    config["defaults"]["jobs"]["max_concurrency"] = most
    if refused:
        with pytest.raises(package.PackageError, match="max_concurrency"):
            split(template, config=config)
        return
    event = split(template, config=config)["Resources"]["Worker"]["Properties"]["Events"]["WorkerSqs"]["Properties"]
    assert event["ScalingConfig"] == {"MaximumConcurrency": most}
