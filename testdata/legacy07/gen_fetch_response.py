# Regenerates the FETCH response fixture of tests/legacy07.rs (PYTHON_FETCH_RESPONSE)
# with an encoder independent of gregor: python3 testdata/legacy07/gen_fetch_response.py
# (needs kafka-python and python-snappy; gzip mtime is fixed so the bytes are stable).
# Builds a Kafka 0.7 FETCH response with python's gzip/zlib and kafka-python's
# xerial snappy: independent of gregor's encoder.
import gzip, struct, zlib
from kafka.codec import snappy_encode
def msg(magic, payload, attr=0):
    crc = zlib.crc32(payload) & 0xffffffff
    body = struct.pack('>b', magic) + (struct.pack('>b', attr) if magic == 1 else b'') + struct.pack('>I', crc) + payload
    return struct.pack('>i', len(body)) + body
plain = msg(0, b'one')
inner_g = msg(1, b'alpha') + msg(1, b'beta')
gz = msg(1, gzip.compress(inner_g, mtime=0), 1)
inner_s = msg(1, b'gamma') + msg(1, b'delta') + msg(1, b'epsilon')
sn = msg(1, snappy_encode(inner_s, xerial_compatible=True, xerial_blocksize=32*1024), 2)
last = msg(1, b'cut off here')
msgs = plain + gz + sn + last[:9]
body = struct.pack('>h', 0) + msgs
frame = struct.pack('>i', len(body)) + body
print(len(plain), len(gz), len(sn), len(last))
for i in range(0, len(frame), 16):
    print('    ' + ' '.join('0x%02x,' % b for b in frame[i:i+16]))
