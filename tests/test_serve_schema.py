"""A bounded property-based run over ``/openapi.json`` (schemathesis): for every operation, generated requests
(valid and not: random bodies, paths, parameters) never get a 500, and every answer matches the schema (status
documented, content type, body shape)."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance, response_schema_conformance, status_code_conformance,
)

from audit.serve.app import create_app
from audit.serve.db import ServiceDB
from audit.serve.service import Service, Settings
from audit.serve.tokens import add_token
from conftest import FIXTURES

EXAMPLES = 25


def started_app(folder: Path) -> tuple[Any, str]:
    """The app over a database holding one club's token and one upload, its service started."""
    db = folder / "schema.duckdb"
    service_db = ServiceDB(str(db))
    token = add_token(service_db.con, "club")[1]
    service_db.close()
    service = Service(Settings(db=str(db), max_upload=256 * 1024))
    service.start()
    return create_app(service.settings, service), token


_FOLDER = Path(tempfile.mkdtemp(prefix="audit-schema-"))
APP, TOKEN = started_app(_FOLDER)
schema = schemathesis.openapi.from_asgi("/openapi.json", APP)


@pytest.fixture(scope="module", autouse=True)
def one_upload() -> Iterator[None]:
    from fastapi.testclient import TestClient

    client = TestClient(APP)  # no lifespan: the service is already started
    data = (FIXTURES / "demo" / "reopen-dispute.txt").read_bytes()
    r = client.post("/api/v1/uploads", content=data, headers={"Content-Type": "text/plain",
                                                             "Authorization": f"Bearer {TOKEN}"})
    assert r.status_code == 200
    yield
    APP.state.service.stop()
    shutil.rmtree(_FOLDER, ignore_errors=True)


@schema.parametrize()
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_500_and_every_answer_fits_the_schema(case: Any) -> None:
    case.call_and_validate(headers={"Authorization": f"Bearer {TOKEN}"},
                           checks=[not_a_server_error, status_code_conformance, content_type_conformance,
                                   response_schema_conformance])


REPORT_EXAMPLES = 60
reports_schema = schema.include(path="/api/v1/reports/{name}")


def test_the_schema_describes_every_report_parameter() -> None:
    """So that the runs here send them: the report's name among those of `reports/`, and each parameter a report
    takes, with the range of a whole number."""
    from audit.serve.db import report_files

    operation = APP.openapi()["paths"]["/api/v1/reports/{name}"]["get"]
    params = {p["name"]: p for p in operation["parameters"]}
    taken = {p.name for r in report_files().values() for p in r.params}
    assert taken <= set(params)
    assert params["name"]["schema"]["enum"] == sorted(report_files())
    limit = params["limit"]["schema"]["anyOf"][0]
    assert (limit["type"], limit["minimum"], limit["maximum"]) == ("integer", 0, 2 ** 31 - 1)


@reports_schema.parametrize()
@settings(max_examples=REPORT_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
def test_report_parameters_never_give_a_500(case: Any) -> None:
    """Every report, with parameters in range and out of it (a limit of -1 or 2^31, a date that is none)."""
    case.call_and_validate(headers={"Authorization": f"Bearer {TOKEN}"},
                           checks=[not_a_server_error, status_code_conformance, content_type_conformance,
                                   response_schema_conformance])
