"""Workforce insights (tool `insights`, view; executive, head and manager) and the capacity heatmap."""
from chalice import Blueprint

from chalicelib.core.http import endpoint

from . import service, service_capacity
from .schemas import (CapacityHeatmapRead, CompensationRead, DiversityRead, HeadcountSeriesRead, InsightsQuery,
                      LocationRead, OverviewRead, RetentionRead, StructureRead)

bp = Blueprint(__name__)
BASE = "/api/insights"
LEVELS = ("manager", "head", "executive")


@bp.route(f"{BASE}/overview", methods=["GET"])
@endpoint(tool="insights", level="view", access=LEVELS, query=InsightsQuery, response=OverviewRead)
def insights_overview(ctx, query: InsightsQuery):
    """Headcount, retention, diversity, compensation, structure and location in one answer"""
    return service.overview(ctx, query)


@bp.route(f"{BASE}/headcount", methods=["GET"])
@endpoint(tool="insights", level="view", access=LEVELS, query=InsightsQuery, response=HeadcountSeriesRead)
def insights_headcount(ctx, query: InsightsQuery):
    """Monthly headcount (at each month's end), starters and leavers"""
    return service.headcount(ctx, query)


@bp.route(f"{BASE}/retention", methods=["GET"])
@endpoint(tool="insights", level="view", access=LEVELS, query=InsightsQuery, response=RetentionRead)
def insights_retention(ctx, query: InsightsQuery):
    """Tenure distribution and the monthly turnover series"""
    return service.retention(ctx, query)


@bp.route(f"{BASE}/diversity", methods=["GET"])
@endpoint(tool="insights", level="view", access=LEVELS, query=InsightsQuery, response=DiversityRead)
def insights_diversity(ctx, query: InsightsQuery):
    """Gender, managers' gender and age distribution"""
    return service.diversity(ctx, query)


@bp.route(f"{BASE}/compensation", methods=["GET"])
@endpoint(tool="insights", level="view", access=LEVELS, query=InsightsQuery, response=CompensationRead)
def insights_compensation(ctx, query: InsightsQuery):
    """Median, minimum and maximum salary, salary bands and employment basis"""
    return service.compensation(ctx, query)


@bp.route(f"{BASE}/structure", methods=["GET"])
@endpoint(tool="insights", level="view", access=LEVELS, query=InsightsQuery, response=StructureRead)
def insights_structure(ctx, query: InsightsQuery):
    """Span of control, its distribution, team sizes and managers' report counts"""
    return service.structure(ctx, query)


@bp.route(f"{BASE}/location", methods=["GET"])
@endpoint(tool="insights", level="view", access=LEVELS, query=InsightsQuery, response=LocationRead)
def insights_location(ctx, query: InsightsQuery):
    """Headcount by location with percentages"""
    return service.location(ctx, query)


@bp.route(f"{BASE}/capacity-heatmap", methods=["GET"])
@endpoint(tool="insights", level="view", access=LEVELS, response=CapacityHeatmapRead)
def capacity_heatmap(ctx):
    """The capacity heatmap: a cell per company and project type with its project counts"""
    return {"cells": service_capacity.heatmap(ctx)}
