"""layoutd: a Python client for the layoutd daemon (protocol version 1). Standard library only.

    from layoutd import Client
    with Client() as client:                      # socket discovery: protocol/README.md §1
        client.daemon_hello(protocol=[1])
        snapshot = client.view_create("photos", "flow", {"width": 320, "height": 200}, ...)
"""
from . import _errors, wire
from ._coverage import RAW_ONLY
from ._names import EVENTS, METHODS, PROTOCOL_VERSIONS
from .aio import AsyncClient, AsyncSubscription
from .aio_reconnect import AsyncReconnector, wait_until_serving_async
from .client import Client, ReplyHandler, RequestId, Subscription, encode_request
from .core import Core
from .discovery import SYSTEM_SOCKET, socket_path
from ._errors import *  # noqa: F401,F403 - one exception class per error name
from .errors import (CONNECTION_ERRORS, ERRORS, LINE_ERRORS, ClientError, ConnectionClosed, LayoutdError, ProtocolError,
                     SequenceGap, Timeout, error_from_reply)
from .mirror import Mirror, MirrorChange
from .model import (Attributes, Context, ElementKey, Event, Insets, Invalidation, Item, JSONObject, Point, QueryPage, Rect,
                    Section, Segment, Size, Snapshot, Transform, Transition, Viewport, to_wire)
from .reconnect import Reconnector, wait_until_serving
from .transition import CURVES, TransitionPlayer, attributes_at, cubic_bezier, interpolate, linear, transition_at
from .updates import (DeleteItems, DeleteSections, InsertItems, InsertSections, MoveItem, MoveSection, ReloadItems,
                      ReloadSections, Update)
from .wire import AnchorPolicy

from ._version import __version__  # noqa: F401 - the release (Sources/LayoutProtocol/Release.swift)

__all__ = [
    "AsyncClient", "AsyncSubscription", "Client", "RequestId", "Subscription", "encode_request", "Core",
    "SYSTEM_SOCKET", "socket_path", "Mirror", "MirrorChange", "ReplyHandler", "Reconnector", "AsyncReconnector",
    "wait_until_serving", "wait_until_serving_async", "PROTOCOL_VERSIONS", "METHODS", "EVENTS", "RAW_ONLY", "wire", "AnchorPolicy",
    "Attributes", "Context", "ElementKey", "Event", "Insets", "Invalidation", "Item", "JSONObject", "Point", "QueryPage",
    "Rect", "Section", "Segment", "Size", "Snapshot", "Transform", "Transition", "Viewport", "to_wire",
    "DeleteItems", "DeleteSections", "InsertItems", "InsertSections", "MoveItem", "MoveSection", "ReloadItems",
    "ReloadSections", "Update",
    "TransitionPlayer", "attributes_at", "interpolate", "linear", "CURVES", "cubic_bezier", "transition_at",
    "ClientError", "ConnectionClosed", "LayoutdError", "ProtocolError", "SequenceGap", "Timeout", "ERRORS",
    "CONNECTION_ERRORS", "LINE_ERRORS", "error_from_reply",
]
__all__ += _errors.__all__
