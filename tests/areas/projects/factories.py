"""Factories of the projects area: plain functions that add, flush and return."""
from __future__ import annotations

import itertools

from chalicelib.areas.projects.models import Project, ProjectMember
from tests.factories import add_row

_seq = itertools.count(1)


def make_project(db, **overrides) -> Project:
    members = overrides.pop("members", ())
    values = {"name": f"Project {next(_seq)}", "status": "active"}
    project = add_row(db, Project, values, overrides)
    for user in members:
        add_member(db, project, user)
    return project


def add_member(db, project: Project, user, role: str = "member") -> ProjectMember:
    member = ProjectMember(project_id=project.id, user_id=user.id, role=role)
    db.add(member)
    db.flush()
    return member
