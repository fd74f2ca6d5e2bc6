"""layoutd: a Python client for the layoutd daemon (protocol version 1). Standard library only.

    from layoutd import Client
    with Client() as client:                      # socket discovery: protocol/README.md §1
        client.daemon_hello(protocol=[1])
        snapshot = client.view_create("photos", "flow", {"width": 320, "height": 200}, ...)
"""
from .aio import AsyncClient, AsyncSubscription
from .client import Client, RequestId, Subscription, encode_request
from .discovery import SYSTEM_SOCKET, socket_path
from .errors import (
    ParseError, LineTooLong, InvalidRequest, MethodNotFound, InvalidParams, InternalError,
    ViewNotFound, ViewExists, UnknownStrategy, UnknownParameter, InvalidParameter, InvalidViewport,
    InvalidSize, InvalidID, DuplicateItemID, DuplicateSectionID, ItemNotFound, SectionNotFound,
    InvalidBatch, IndexOutOfRange, StaleEpoch, LimitExceeded, PermissionDenied, UnsupportedVersion,
    DuplicateStrategy, ReloadFailed, IdleTimeout, OutputOverflow, ElementNotFound, TransitionInProgress, NoActiveTransition, MoveInProgress, NoActiveMove, SectionNotOrthogonal,
)
from .errors import ERRORS, ClientError, ConnectionClosed, LayoutdError, SequenceGap, error_from_reply
from .mirror import Mirror
from .model import (Attributes, Context, ElementKey, Event, Insets, Invalidation, Item, JSONObject, Point, QueryPage, Rect,
                    Section, Segment, Size, Snapshot, Transform, Transition, Viewport, to_wire)
from .reconnect import Reconnector, wait_until_serving
from .aio_reconnect import AsyncReconnector, wait_until_serving_async
from .updates import (DeleteItems, DeleteSections, InsertItems, InsertSections, MoveItem, MoveSection, ReloadItems,
                      ReloadSections, Update)
from .transition import CURVES, TransitionPlayer, attributes_at, cubic_bezier, interpolate, linear, transition_at

__version__ = "0.1.0"

__all__ = [
    "DeleteItems", "DeleteSections", "InsertItems", "InsertSections", "MoveItem", "MoveSection", "ReloadItems",
    "ReloadSections", "Update",
    "AsyncClient", "AsyncSubscription", "Client", "RequestId", "Subscription", "encode_request",
    "SYSTEM_SOCKET", "socket_path", "ERRORS", "ClientError", "ConnectionClosed", "LayoutdError",
    "SequenceGap", "error_from_reply", "Mirror", "Attributes", "Context", "ElementKey", "Event",
    "Insets", "Invalidation", "Item", "JSONObject", "Point", "QueryPage", "Rect", "Section",
    "Segment", "Size", "Snapshot", "Transform", "Transition", "Viewport", "to_wire", "Reconnector", "AsyncReconnector", "wait_until_serving_async",
    "wait_until_serving", "TransitionPlayer", "attributes_at", "interpolate", "linear", "CURVES", "cubic_bezier",
    "transition_at", "ParseError", "LineTooLong", "InvalidRequest", "MethodNotFound",
    "InvalidParams", "InternalError", "ViewNotFound", "ViewExists", "UnknownStrategy",
    "UnknownParameter", "InvalidParameter", "InvalidViewport", "InvalidSize", "InvalidID",
    "DuplicateItemID", "DuplicateSectionID", "ItemNotFound", "SectionNotFound", "InvalidBatch",
    "IndexOutOfRange", "StaleEpoch", "LimitExceeded", "PermissionDenied", "UnsupportedVersion",
    "DuplicateStrategy", "ReloadFailed", "IdleTimeout", "OutputOverflow", "ElementNotFound", "TransitionInProgress", "NoActiveTransition", "MoveInProgress", "NoActiveMove", "SectionNotOrthogonal",
]
