"""The OHH 1.4.6 schema the history tests validate against, shared by their modules.

Two validators of the same schema: jsonschema's (Python) and jsonschema_rs (Rust, which
schemathesis brings), about 150 times faster; many documents go through the fast one, and both
must refuse what 1.4.6 does not have (test_session.py)."""

import json
from pathlib import Path

import jsonschema_rs
from jsonschema import Draft202012Validator

SCHEMA = json.loads((Path(__file__).parent / "ohh-1.4.6.schema.json").read_text())
VALIDATOR = Draft202012Validator(SCHEMA)
FAST_VALIDATOR = jsonschema_rs.Draft202012Validator(SCHEMA)
