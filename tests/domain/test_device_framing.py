"""The device framing and protocol, fuzzed: no input crashes them, corrupted frames never become messages, and valid
frames split at any byte boundary are all recovered, in order."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from devices.framing import MAX_PAYLOAD, Frame, FrameParser, crc16, encode
from devices.protocol import (
    Ack,
    CardDrawn,
    Colour,
    DeckCheck,
    DeckCheckResult,
    Deliver,
    DeviceKind,
    Heartbeat,
    Hello,
    Message,
    Nak,
    NakReason,
    ProtocolError,
    ShoeFault,
    ShoeFaultCode,
    Shuffle,
    ShufflerFault,
    ShufflerFaultCode,
    ShufflerState,
    ShufflerStateCode,
    decode,
)
from devices.protocol import encode as encode_message

frames = st.builds(Frame, seq=st.integers(0, 255), type=st.integers(0, 255),
                   payload=st.binary(max_size=MAX_PAYLOAD))


def test_the_crc_is_ccitt_false() -> None:
    assert crc16(b"123456789") == 0x29B1


@settings(max_examples=500)
@given(st.binary(max_size=2000), st.lists(st.integers(1, 64), max_size=20))
def test_any_bytes_in_any_pieces_never_crash_the_parser(data: bytes, cuts: list[int]) -> None:
    parser = FrameParser()
    position = 0
    for cut in [*cuts, len(data)]:
        for frame in parser.feed(data[position:position + cut]):
            assert encode(frame) in data  # whatever it yields was really sent, whole and checked
        position += cut
    assert len(parser.buffer) <= 255 + 5


@settings(max_examples=300)
@given(st.lists(frames, min_size=1, max_size=8), st.data())
def test_valid_frames_split_at_any_byte_boundary_are_all_recovered_in_order(
    sent: list[Frame], data: st.DataObject
) -> None:
    stream = b"".join(encode(frame) for frame in sent)
    cuts = sorted(data.draw(st.sets(st.integers(1, max(1, len(stream) - 1)), max_size=len(stream))))
    parser, received = FrameParser(), []
    previous = 0
    for cut in [*cuts, len(stream)]:
        received.extend(parser.feed(stream[previous:cut]))
        previous = cut
    assert received == sent
    assert parser.discarded == 0


@settings(max_examples=500)
@given(frames, frames, st.data())
def test_a_frame_with_a_corrupted_byte_never_yields_a_message_and_the_next_frame_survives(
    bad: Frame, good: Frame, data: st.DataObject
) -> None:
    raw = bytearray(encode(bad))
    index = data.draw(st.integers(1, len(raw) - 1))  # any byte but the STX (a lost STX just hides the frame)
    raw[index] ^= data.draw(st.integers(1, 255))
    parser = FrameParser()
    received = parser.feed(bytes(raw) + encode(good))
    while not received and parser.buffer:  # a corrupted length waits for bytes: the line goes quiet, resync
        received = parser.resync()
    assert bad not in received or bad == good
    assert received[-1] == good


@settings(max_examples=300)
@given(frames, st.integers(1, 20))
def test_a_stream_cut_mid_frame_yields_nothing_until_the_rest_arrives(frame: Frame, keep: int) -> None:
    raw = encode(frame)
    parser = FrameParser()
    assert parser.feed(raw[:min(keep, len(raw) - 1)]) == []
    assert parser.feed(raw[min(keep, len(raw) - 1):]) == [frame]


colours = st.sampled_from(list(Colour))
codes = st.lists(st.integers(0, 51), max_size=8).map(tuple)
messages: st.SearchStrategy[Message] = st.one_of(
    st.builds(Hello, st.sampled_from(list(DeviceKind)), st.text(max_size=10), st.text(max_size=10),
              st.text(max_size=10)),
    st.builds(Hello, st.sampled_from(list(DeviceKind)), st.text(max_size=10), st.text(max_size=10),
              st.text(max_size=10), st.integers(0, 2**32 - 1)),
    st.just(Heartbeat()),
    st.builds(Ack, st.integers(0, 255)),
    st.builds(Nak, st.integers(0, 255), st.sampled_from(list(NakReason))),
    st.builds(CardDrawn, st.integers(0, 2**32 - 1), st.integers(2, 14), st.integers(0, 3), colours, st.booleans()),
    st.builds(CardDrawn, st.integers(0, 2**32 - 1), st.just(0), st.just(0), colours, st.booleans()),
    st.builds(ShoeFault, st.sampled_from(list(ShoeFaultCode)), st.integers(0, 2**32 - 1)),
    st.builds(Shuffle, colours, st.sampled_from([28, 32, 36, 40, 44, 48, 52])),
    st.builds(DeckCheck, colours),
    st.builds(Deliver, colours),
    st.builds(ShufflerState, st.sampled_from(list(ShufflerStateCode)), colours),
    st.builds(DeckCheckResult, colours, st.integers(0, 104), codes, codes, codes),
    st.builds(ShufflerFault, st.sampled_from(list(ShufflerFaultCode)), colours),
)


@settings(max_examples=500)
@given(messages, st.integers(0, 255))
def test_every_message_survives_encoding_and_decoding(message: Message, seq: int) -> None:
    frame = encode_message(message, seq)
    assert decode(frame) == message
    assert FrameParser().feed(encode(frame)) == [frame]


@settings(max_examples=1000)
@given(frames)
def test_decoding_any_frame_gives_a_message_or_a_protocol_error(frame: Frame) -> None:
    try:
        message = decode(frame)
    except ProtocolError:
        return
    assert encode_message(message, frame.seq).type == frame.type
