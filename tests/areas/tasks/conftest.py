import pytest

from tests.factories import make_user


@pytest.fixture
def exec_user(db):
    return make_user(db, access_level="executive", name="Erin Exec")


@pytest.fixture
def employee(db):
    return make_user(db, access_level="employee", name="Emma Employee")
