"""Issue 21, defect 1 for gRPC tools: from a strict target, null means "not given"."""

from __future__ import annotations

import json

from conftest import Compiled, Running
from seams import ALL_REQUIRED, one_call
from toolcast._define._nulls import accepts_null
from toolcast.aliases import RAW_IDS
from toolcast.grpc import tools_from_descriptors

# Only `field_behavior = REQUIRED` fields are required by default (docs/grpc.md).
REQUIRED = {"destination": "https://a.b"}


async def test_defect1_strict_null_means_not_given_for_grpc_tools(
    compiled: Compiled, server: Running
) -> None:
    tools = tools_from_descriptors(compiled.with_comments, channel=server.channel)
    create = next(t for t in tools if t.name == "links_create")
    schema = create.spec.input_schema
    assert set(REQUIRED) == set(schema["required"])
    # Null for every optional field, as a strict model leaves them out; those whose
    # schema does not accept null are the ones the rule must drop.
    optional = [k for k in schema["properties"] if k not in REQUIRED]
    dropped = [k for k in optional if not accepts_null(schema["properties"][k])]
    assert dropped, "the rule has something to do here"
    sent = {**REQUIRED, **dict.fromkeys(optional)}
    for target in ALL_REQUIRED:
        outcome = await create.invoke(one_call(target, "links_create", sent), aliases=RAW_IDS)
        assert not outcome.is_error, (target, outcome.text)
        method, request = server.state.requests[-1]
        assert method == "CreateLink"
        assert not request.HasField("note")
        assert json.loads(outcome.text)["link"]["destination"] == "https://a.b"
    # Without the strict mark, the same nulls are checked as the schema says.
    refused = await create.invoke(sent, aliases=RAW_IDS)
    assert refused.is_error
    assert any(f"'{k}'" in refused.text for k in dropped), refused.text
