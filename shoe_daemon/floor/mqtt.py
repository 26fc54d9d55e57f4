"""One way to make the floor's MQTT 5 client, for the table's link and the pit's collector.

Both need the same things of paho: MQTT 5, TLS against the floor's CA, a login, and a
persistent session (`clean_start` off, a session expiry) so that the broker keeps what it
owes a client that is away: the collector's queued records, the table's resend commands.
"""

from __future__ import annotations

import ssl

import paho.mqtt.client as mqtt
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from shoe_daemon.floor.config import FloorConfig, FloorConfigError

SUCCESS_MAX = 0x80  # MQTT 5 reason codes at or above this are failures
NO_MATCHING_SUBSCRIBERS = 0x10  # accepted, but nobody will ever read it


def make_client(config: FloorConfig, client_id: str, *, manual_ack: bool = False,
                inflight: int = 100) -> mqtt.Client:
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id,
                         protocol=mqtt.MQTTv5, manual_ack=manual_ack)
    client.username_pw_set(config.username, config.password or None)
    client.tls_set_context(tls_context(config))
    client.max_inflight_messages_set(inflight)
    client.max_queued_messages_set(0)
    client.reconnect_delay_set(1, 10)
    return client


def tls_context(config: FloorConfig) -> ssl.SSLContext:
    """TLS that trusts the floor's CA alone and checks the broker's name; a file that cannot
    be used is a configuration error naming its setting."""
    try:
        context = ssl.create_default_context(cafile=str(config.ca_file))
    except (ssl.SSLError, OSError) as e:
        raise FloorConfigError(f"floor.ca_file: {config.ca_file}: {e}") from e
    if config.cert_file is not None:
        try:
            context.load_cert_chain(str(config.cert_file), str(config.key_file))
        except (ssl.SSLError, OSError) as e:
            raise FloorConfigError(f"floor.cert_file: {config.cert_file}: {e}") from e
    return context


def connect(client: mqtt.Client, config: FloorConfig, *, receive_maximum: int = 0) -> None:
    """Start connecting in the background (paho's own thread reconnects for ever)."""
    props = Properties(PacketTypes.CONNECT)
    props.SessionExpiryInterval = config.session_expiry
    if receive_maximum:
        props.ReceiveMaximum = receive_maximum
    client.connect_async(config.host, config.port, keepalive=config.keepalive,
                         clean_start=False, properties=props)
    client.loop_start()


def delivered(reason_code: int) -> bool:
    """Whether a PUBACK means the broker took the message for a reader: a refusal (an ACL,
    a quota) or "no matching subscribers" (no collector has ever subscribed) does not."""
    return reason_code < SUCCESS_MAX and reason_code != NO_MATCHING_SUBSCRIBERS


def user_properties(msg: mqtt.MQTTMessage) -> list[tuple[str, str]] | None:
    """The MQTT 5 user properties of a message received (where its signature is), or None."""
    props = getattr(msg, "properties", None)
    return getattr(props, "UserProperty", None) if props is not None else None
