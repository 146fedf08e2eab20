"""Issue 22 items on real protos: each test is named after the item it checks.

The library service (tests/rpc/corpus) has no ai.tools.v1 annotations; the
packages' protos come from their installed `_pb2` modules.
"""

from __future__ import annotations

import warnings
from typing import Any

import grpc
import pytest

from conftest import Library
from toolcast import Tool
from toolcast.errors import ToolError
from toolcast.grpc import tools_from_descriptors, tools_from_reflection
from toolcast.grpc._convert import RequestConverter
from toolcast.grpc._index import DescriptorIndex
from toolcast.grpc._schema import message_schema
from toolcast.grpc._tools import _file_protos


@pytest.fixture(scope="module")
def tools(library: Library) -> dict[str, Tool]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found = tools_from_descriptors(library.descriptor_set, methods="all")
    return {t.name: t for t in found}


def schema_of(module: Any, name: str) -> dict[str, Any]:
    index = DescriptorIndex(_file_protos(module)[0])
    problems: list[Any] = []
    schema = message_schema(index, name, "input", problems=problems)
    assert problems == []
    return schema


def refused(tool: Tool, arguments: dict[str, Any]) -> str:
    with pytest.raises(ValueError, match="rgument") as raised:
        tool.validate(arguments)
    return str(raised.value)


BOOK = {"parent": "shelves/s1", "book": {"title": "Dune"}}


# -- 1. accepted, then refused by protojson: each class is now refused by the schema ----


def test_int64_strings_beyond_range_are_refused(tools: dict[str, Tool]) -> None:
    book = tools["create_book"]
    book.validate({**BOOK, "book": {"title": "t", "page_count": "9223372036854775807"}})
    assert "page_count" in refused(
        book, {**BOOK, "book": {"title": "t", "page_count": "9223372036854775808"}}
    )
    assert "isbn13" in refused(book, {**BOOK, "book": {"title": "t", "isbn13": "-1"}})


def test_bytes_that_are_not_base64_are_refused(tools: dict[str, Tool]) -> None:
    book = tools["create_book"]
    for good in ("YWJj", "YQ==", "YQ", "-_-_"):
        book.validate({**BOOK, "book": {"title": "t", "cover_image": good}})
    for bad in ("a", "@@@@", "YQ=x"):
        assert "cover_image" in refused(book, {**BOOK, "book": {"title": "t", "cover_image": bad}})


def test_durations_beyond_ten_thousand_years_are_refused(tools: dict[str, Tool]) -> None:
    book = tools["create_book"]
    book.validate({**BOOK, "book": {"title": "t", "read_time": "-315576000000.5s"}})
    assert "read_time" in refused(
        book, {**BOOK, "book": {"title": "t", "read_time": "315576000001s"}}
    )


@pytest.mark.parametrize(
    "stamp",
    [
        "2024-05-01t12:00:00Z",
        "2024-05-01T12:00:00z",
        "2016-12-31T23:59:60Z",
        "0000-01-01T00:00:00Z",
        "2024-05-01T12:00:00.1234567891Z",
        "0001-01-01T00:00:00+01:00",
    ],
)
def test_timestamps_protobuf_refuses_are_refused(tools: dict[str, Tool], stamp: str) -> None:
    from google.protobuf import timestamp_pb2

    with pytest.raises(ValueError, match=r"\S"):
        timestamp_pb2.Timestamp().FromJsonString(stamp)
    assert "published" in refused(
        tools["create_book"], {**BOOK, "book": {"title": "t", "published": stamp}}
    )


def test_any_with_an_unknown_or_malformed_type_or_payload_is_refused(
    tools: dict[str, Tool],
) -> None:
    book = tools["create_book"]

    def attach(value: Any) -> dict[str, Any]:
        return {**BOOK, "book": {"title": "t", "attachment": value}}

    book.validate(attach({"@type": "type.googleapis.com/google.protobuf.Duration", "value": "1s"}))
    book.validate(attach({"@type": "type.googleapis.com/library.v1.Shelf", "theme": "sea"}))
    for bad in (
        {"@type": "type.googleapis.com/nope.Nope"},
        {"@type": "nope"},
        {"@type": "type.googleapis.com/google.protobuf.Duration", "value": 5},
        {"@type": "type.googleapis.com/library.v1.Shelf", "colour": "sea"},
    ):
        assert "attachment" in refused(book, attach(bad))


def test_two_members_of_a_root_oneof_are_refused(tools: dict[str, Tool]) -> None:
    search = tools["search_books"]
    search.validate({"parent": "shelves/s1", "title": "Dune", "author": None})
    search.validate({"parent": "shelves/s1"})
    refused(search, {"parent": "shelves/s1", "title": "Dune", "author": "Herbert"})


def test_integer_keyed_maps_refuse_non_integer_keys(tools: dict[str, Tool]) -> None:
    book = tools["create_book"]
    book.validate(
        {**BOOK, "book": {"title": "t", "notes_by_offset": {"-12": "x"}, "flags": {"true": "y"}}}
    )
    assert "notes_by_offset" in refused(
        book, {**BOOK, "book": {"title": "t", "notes_by_offset": {"1.5": "x"}}}
    )
    assert "prices_by_region" in refused(
        book, {**BOOK, "book": {"title": "t", "prices_by_region": {"-1": 2.0}}}
    )
    assert "flags" in refused(book, {**BOOK, "book": {"title": "t", "flags": {"yes": "y"}}})


def test_a_request_that_is_a_wrapper_type_travels_as_value(
    tools: dict[str, Tool], library: Library
) -> None:
    echo = tools["echo"]
    assert echo.spec.input_schema["required"] == ["value"]
    message = RequestConverter("echo", library_class("google.protobuf.StringValue"))(
        {"value": "hi"}
    )
    assert message.value == "hi"
    refused(echo, {"value": 5})


def library_class(name: str) -> Any:
    from google.protobuf import descriptor_pool, message_factory

    return message_factory.GetMessageClass(descriptor_pool.Default().FindMessageTypeByName(name))


# -- 2. numbers and the executor --------------------------------------------------------


def test_1e400_is_refused_and_never_overflows(tools: dict[str, Tool], library: Library) -> None:
    book = tools["create_book"]
    assert "price" in refused(book, {**BOOK, "book": {"title": "t", "price": 10**400}})
    # Past validation (a handler passing its own value), the conversion names the field.
    convert = RequestConverter("create_book", library.pb2.CreateBookRequest)
    with pytest.raises(ToolError, match=r"Argument 'book'.*OverflowError"):
        convert({**BOOK, "book": {"title": "t", "extra": {"x": 10**400}}})


def test_1e39_never_reaches_a_float_as_infinity(tools: dict[str, Tool], library: Library) -> None:
    assert "weight_kg" in refused(
        tools["create_book"], {**BOOK, "book": {"title": "t", "weight_kg": 1e39}}
    )
    # The largest float32 as protojson writes it is taken (protobuf's parser alone refuses it).
    tools["create_book"].validate(
        '{"parent": "s", "book": {"title": "t", "weight_kg": 3.4028235e+38, '
        '"scale": -3.4028235e38}}'
    )
    convert = RequestConverter("create_book", library.pb2.CreateBookRequest)
    made = convert(
        {**BOOK, "book": {"title": "t", "weight_kg": 3.4028235e38, "scale": -3.4028235e38}}
    )
    assert made.book.weight_kg == pytest.approx(3.4028234663852886e38)
    assert made.book.scale.value == pytest.approx(-3.4028234663852886e38)


def test_minus_zero_stays_minus_zero_in_the_conversion(library: Library) -> None:
    import math

    convert = RequestConverter("create_book", library.pb2.CreateBookRequest)
    made = convert({**BOOK, "book": {"title": "t", "price": -0.0, "weight_kg": -0.0}})
    assert math.copysign(1.0, made.book.price) == -1.0
    assert math.copysign(1.0, made.book.weight_kg) == -1.0


def test_conversion_problems_are_tool_errors_naming_the_field(library: Library) -> None:
    convert = RequestConverter("create_book", library.pb2.CreateBookRequest)
    with pytest.raises(ToolError, match="book"):
        convert({**BOOK, "book": {"title": "t", "page_count": "x"}})
    with pytest.raises(ToolError, match="Argument 'book'"):
        convert({**BOOK, "book": {"title": "t", "tags": [10**400]}})


# -- 3. crash -------------------------------------------------------------------------


def test_recursion_through_google_protobuf_types_uses_defs() -> None:
    from google.protobuf import descriptor_pb2

    schema = schema_of(descriptor_pb2, "google.protobuf.FileDescriptorProto")
    nested = schema["$defs"]["google_protobuf_DescriptorProto"]["properties"]["nested_type"]
    assert nested["items"] == {"$ref": "#/$defs/google_protobuf_DescriptorProto"}
    Tool.from_schema("files", "", schema, lambda arguments: None).validate(
        {"name": "a.proto", "message_type": [{"name": "A", "nested_type": [{"name": "B"}]}]}
    )


def test_plugin_failures_go_to_the_response_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from google.protobuf import descriptor_pb2
    from google.protobuf.compiler import plugin_pb2

    from toolcast.grpc import _plugin

    descriptor = descriptor_pb2.FileDescriptorProto()
    descriptor_pb2.DESCRIPTOR.CopyToProto(descriptor)
    service = descriptor_pb2.FileDescriptorProto(
        name="meta.proto",
        package="meta",
        dependency=["google/protobuf/descriptor.proto"],
        syntax="proto3",
    )
    method = service.service.add(name="Meta").method.add(name="Describe")
    method.input_type = ".google.protobuf.FileDescriptorProto"
    method.output_type = ".google.protobuf.FileDescriptorSet"
    request = plugin_pb2.CodeGeneratorRequest(
        file_to_generate=["meta.proto"], parameter="methods=all", proto_file=[descriptor, service]
    )
    answer = plugin_pb2.CodeGeneratorResponse.FromString(
        _plugin.generate(request.SerializeToString())
    )
    assert answer.error == ""  # recursion through google.protobuf.* is no longer a crash
    assert "describe" in answer.file[0].content

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(_plugin, "collect", broken)
    answer = plugin_pb2.CodeGeneratorResponse.FromString(
        _plugin.generate(request.SerializeToString())
    )
    assert (
        answer.error
        == "protoc-gen-toolcast failed: RecursionError: maximum recursion depth exceeded"
    )
    garbage = plugin_pb2.CodeGeneratorResponse.FromString(_plugin.generate(b"\xff\xff"))
    assert garbage.error.startswith("protoc-gen-toolcast failed:")


# -- 4. valid requests that can now be expressed ---------------------------------------


def test_a_nested_oneof_may_have_none_set_and_a_missing_required_field_is_named(
    tools: dict[str, Tool],
) -> None:
    book = tools["create_book"]
    book.validate({**BOOK, "book": {"title": "t", "location": {"room": "A"}}})
    text = refused(book, {**BOOK, "book": {"title": "t", "location": {"shelf": "3"}}})
    assert "book.location.room" in text
    assert "required" in text


def test_a_meaningful_enum_zero_is_a_value() -> None:
    from google.protobuf import descriptor_pb2, type_pb2
    from opentelemetry.proto.collector.trace.v1 import trace_service_pb2

    assert (
        "SYNTAX_PROTO2"
        in schema_of(type_pb2, "google.protobuf.Type")["properties"]["syntax"]["enum"]
    )
    otel = schema_of(
        trace_service_pb2, "opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest"
    )
    assert "STATUS_CODE_UNSET" in str(otel)
    field = schema_of(descriptor_pb2, "google.protobuf.FieldOptions")["properties"]["ctype"]
    assert "STRING" in field["enum"]


def test_an_unspecified_enum_zero_is_left_out(tools: dict[str, Tool]) -> None:
    book = tools["create_book"].spec.input_schema["properties"]["book"]["properties"]
    assert "GENRE_UNSPECIFIED" not in book["genre"]["enum"]
    assert book["cover"]["enum"] == ["HARDCOVER", "PAPERBACK", "EBOOK"]
    assert "left out, it is HARDCOVER" in book["cover"]["description"]


@pytest.mark.parametrize(
    ("tool", "good", "bad"),
    [
        ("wait", {"value": "1.5s"}, {"value": {"seconds": 1}}),
        ("at", {"value": "2024-05-01T12:00:00Z"}, {"value": "2024-05-01"}),
        ("mask", {"value": "title,pageCount"}, {"value": {"paths": ["title"]}}),
        ("values", {"value": [1, "a", None, {"b": [True]}]}, {"value": {"values": []}}),
        ("dynamic", {"value": {"a": 1}}, {}),
        ("structured", {"a": [1, 2]}, {"a": 10**400}),
        ("pack", {"@type": "type.googleapis.com/google.protobuf.Empty"}, {"@type": "x"}),
        ("count_shelves", {}, {"x": 1}),
    ],
)
def test_well_known_types_as_requests_get_protojson_shapes(
    tools: dict[str, Tool], tool: str, good: dict[str, Any], bad: dict[str, Any]
) -> None:
    from google.protobuf import json_format

    validated = tools[tool].validate(good)
    request = tools_request(tool)
    message = RequestConverter(tool, library_class(request))(validated)
    assert json_format.MessageToDict(message) is not None
    refused(tools[tool], bad)


def tools_request(tool: str) -> str:
    return {
        "wait": "google.protobuf.Duration",
        "at": "google.protobuf.Timestamp",
        "mask": "google.protobuf.FieldMask",
        "values": "google.protobuf.ListValue",
        "dynamic": "google.protobuf.Value",
        "structured": "google.protobuf.Struct",
        "pack": "google.protobuf.Any",
        "count_shelves": "google.protobuf.Empty",
    }[tool]


def test_well_known_types_as_fields_at_every_depth(tools: dict[str, Tool]) -> None:
    book = tools["create_book"]
    deep = {"title": "t", "chapters": [{"title": "c", "sections": [{"title": "s"}]}]}
    deep["timings"] = {"read": "3s"}
    deep["reprints"] = ["2001-01-01T00:00:00Z"]
    book.validate({**BOOK, "book": deep})
    assert "timings" in refused(book, {**BOOK, "book": {"title": "t", "timings": {"r": "3"}}})


# -- 5. required follows field behaviour -----------------------------------------------


def test_required_follows_field_behaviour(tools: dict[str, Tool], library: Library) -> None:
    create = tools["create_book"].spec.input_schema
    assert create["required"] == ["parent", "book"]
    assert create["properties"]["book"]["required"] == ["title"]
    listing = tools["list_books"].spec.input_schema
    assert listing["required"] == ["parent"]
    assert listing["properties"]["page_token"]["description"] == 'Optional; left out, it is "".'
    tools["list_books"].validate({"parent": "shelves/s1"})
    with pytest.warns(UserWarning, match="UploadBooks"):
        every = tools_from_descriptors(
            library.descriptor_set, methods="all", required="every_scalar"
        )
    strict_listing = {t.name: t for t in every}["list_books"].spec.input_schema
    assert "page_token" in strict_listing["required"]


# -- 6. un-annotated services ----------------------------------------------------------


def test_unannotated_services_become_tools_and_skipped_methods_are_listed(library: Library) -> None:
    with pytest.warns(UserWarning, match="library.v1.Library/UploadBooks: client-streaming"):
        found = tools_from_descriptors(library.descriptor_set, methods="all")
    by_name = {t.name: t for t in found}
    assert "upload_books" not in by_name
    assert {"create_book", "get_book", "list_books", "search_books", "echo"} <= set(by_name)
    assert by_name["get_book"].spec.description == "Get one book by its resource name."
    assert (
        by_name["delete_book"].spec.description
        == "Calls the gRPC method library.v1.Library/DeleteBook."
    )
    # Without source info (a _pb2 module) the sentence stands in for the comment.
    with pytest.warns(UserWarning, match="UploadBooks"):
        plain = {t.name: t for t in tools_from_descriptors(library.pb2, methods="all")}
    assert plain["get_book"].spec.description.startswith("Calls the gRPC method")


def test_annotated_mode_lists_what_it_leaves_out(library: Library) -> None:
    with pytest.warns(UserWarning, match="pass methods='all'"):
        assert tools_from_descriptors(library.descriptor_set) == []


def test_services_selects_and_refuses_unknown_names(library: Library) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert tools_from_descriptors(
            library.descriptor_set, methods="all", services=["library.v1.Library"]
        )
        with pytest.raises(ValueError, match="unknown service"):
            tools_from_descriptors(library.descriptor_set, methods="all", services=["nope.Nope"])


# -- 7. reflection ---------------------------------------------------------------------


class _Library:
    """A small in-memory implementation of the corpus' library service."""

    def __init__(self, pb2: Any) -> None:
        self.pb2 = pb2
        self.books: dict[str, Any] = {}

    async def CreateBook(self, request: Any, context: Any) -> Any:
        book = self.pb2.Book()
        book.CopyFrom(request.book)
        book.name = f"{request.parent}/books/{request.book_id or len(self.books) + 1}"
        self.books[book.name] = book
        return book

    async def GetBook(self, request: Any, context: Any) -> Any:
        if request.name not in self.books:
            await context.abort(grpc.StatusCode.NOT_FOUND, f"no book {request.name}")
        return self.books[request.name]

    async def Echo(self, request: Any, context: Any) -> Any:
        return request

    async def Wait(self, request: Any, context: Any) -> Any:
        from google.protobuf import timestamp_pb2

        return timestamp_pb2.Timestamp(seconds=request.seconds)


async def test_tools_from_reflection_on_a_real_server(library: Library) -> None:
    from grpc_reflection.v1alpha import reflection

    server = grpc.aio.server()
    implementation = _Library(library.pb2)
    servicer = type(
        "Servicer",
        (library.grpc.LibraryServicer,),
        {name: getattr(implementation, name) for name in ("CreateBook", "GetBook", "Echo", "Wait")},
    )()
    library.grpc.add_LibraryServicer_to_server(servicer, server)
    names = ["library.v1.Library", reflection.SERVICE_NAME]
    reflection.enable_server_reflection(names, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    try:
        with pytest.warns(UserWarning, match="UploadBooks"):
            found = await tools_from_reflection(channel)
        by_name = {t.name: t for t in found}
        assert by_name["create_book"].spec.input_schema["required"] == ["parent", "book"]
        made = await by_name["create_book"].invoke(
            {"parent": "shelves/s1", "book_id": "b1", "book": {"title": "Dune", "page_count": 412}}
        )
        assert not made.is_error, made.text
        assert '"page_count":"412"' in made.text
        got = await by_name["get_book"].invoke({"name": "shelves/s1/books/b1"})
        assert '"title":"Dune"' in got.text
        missing = await by_name["get_book"].invoke({"name": "shelves/s1/books/zz"})
        assert missing.is_error
        assert "NOT_FOUND" in missing.text
        echoed = await by_name["echo"].invoke({"value": "hi"})
        assert echoed.text == '{"value":"hi"}'
        waited = await by_name["wait"].invoke({"value": "90s"})
        assert waited.text == '{"value":"1970-01-01T00:01:30Z"}'
        with pytest.raises(LookupError, match=r"does not offer nope\.Nope"):
            await tools_from_reflection(channel, services=["nope.Nope"])
    finally:
        await channel.close()
        await server.stop(None)
