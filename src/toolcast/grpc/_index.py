"""Descriptor protos indexed by full name, with their leading comments.

The three routes (the protoc plugin's request, a `FileDescriptorSet`, imported
`_pb2` modules) all come down to a list of `FileDescriptorProto`s, so everything
after this module sees one shape. Comments exist only where protoc kept
`source_code_info` (the plugin request, `--include_source_info` sets).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ("DescriptorIndex", "MessageEntry", "ServiceEntry", "clean_comment")

# FileDescriptorProto / DescriptorProto / ServiceDescriptorProto field numbers,
# as SourceCodeInfo paths spell them.
_MESSAGE_TYPE, _SERVICE = 4, 6
_NESTED_TYPE, _FIELD = 3, 2
_METHOD = 2


def clean_comment(text: str) -> str:
    """A leading comment as prose: each line stripped, blank ends dropped."""
    lines = [line.strip() for line in text.strip("\n").split("\n")]
    return "\n".join(lines).strip()


@dataclass(frozen=True, slots=True)
class MessageEntry:
    """One message type, where it was declared and its field comments."""

    full_name: str
    proto: Any  # descriptor_pb2.DescriptorProto
    syntax: str
    """The declaring file's syntax: "proto2", "proto3" or "editions"."""
    comments: dict[int, str]
    """Leading comments by field index."""
    file_name: str = ""
    """The .proto file declaring the message."""


@dataclass(frozen=True, slots=True)
class ServiceEntry:
    """One service, the file declaring it, and its method comments by index."""

    full_name: str
    proto: Any  # descriptor_pb2.ServiceDescriptorProto
    file_name: str
    comments: dict[int, str]
    comment: str = ""
    """The service's own leading comment."""


class DescriptorIndex:
    """Messages, enums and services of a set of files, by full name (no leading dot)."""

    def __init__(self, files: Iterable[Any]) -> None:
        self.files: dict[str, Any] = {}
        self.messages: dict[str, MessageEntry] = {}
        self.enums: dict[str, Any] = {}
        self.services: list[ServiceEntry] = []
        for file in files:
            if file.name in self.files:
                continue  # a dependency listed twice (several _pb2 modules)
            self.files[file.name] = file
            self._add_file(file)

    def _add_file(self, file: Any) -> None:
        locations = {
            tuple(location.path): location.leading_comments
            for location in file.source_code_info.location
            if location.leading_comments
        }
        package = file.package
        syntax = file.syntax or "proto2"
        for index, message in enumerate(file.message_type):
            path = (_MESSAGE_TYPE, index)
            self._add_message(message, package, path, locations, (syntax, file.name))
        for enum in file.enum_type:
            self.enums[_join(package, enum.name)] = enum
        for index, service in enumerate(file.service):
            path = (_SERVICE, index)
            comments = {
                m: clean_comment(locations[(*path, _METHOD, m)])
                for m in range(len(service.method))
                if (*path, _METHOD, m) in locations
            }
            comment = clean_comment(locations.get(path, ""))
            self.services.append(
                ServiceEntry(_join(package, service.name), service, file.name, comments, comment)
            )

    def _add_message(
        self,
        message: Any,
        scope: str,
        path: tuple[int, ...],
        locations: dict[tuple[int, ...], str],
        where: tuple[str, str],
    ) -> None:
        full_name = _join(scope, message.name)
        comments = {
            i: clean_comment(locations[(*path, _FIELD, i)])
            for i in range(len(message.field))
            if (*path, _FIELD, i) in locations
        }
        syntax, file_name = where
        self.messages[full_name] = MessageEntry(full_name, message, syntax, comments, file_name)
        for index, nested in enumerate(message.nested_type):
            self._add_message(nested, full_name, (*path, _NESTED_TYPE, index), locations, where)
        for enum in message.enum_type:
            self.enums[_join(full_name, enum.name)] = enum

    def message(self, type_name: str) -> MessageEntry:
        """The message named `type_name` (`.pkg.Msg` or `pkg.Msg`)."""
        return self.messages[type_name.lstrip(".")]

    def enum(self, type_name: str) -> Any:
        """The enum named `type_name` (`.pkg.Enum` or `pkg.Enum`)."""
        return self.enums[type_name.lstrip(".")]

    def services_of(self, file_names: Sequence[str] | None) -> Iterator[ServiceEntry]:
        """The services declared in `file_names` (every file when None), in file order."""
        wanted = None if file_names is None else set(file_names)
        for service in self.services:
            if wanted is None or service.file_name in wanted:
                yield service


def _join(scope: str, name: str) -> str:
    return f"{scope}.{name}" if scope else name
