"""An application test that needs no broker: the code under test
(``publish_orders``) runs against gregor's in-process mock cluster, which
the test also uses to inject failures.

    GREGOR_LIBRARY=target/debug/libgregor.so PYTHONPATH=bindings/python \\
        python3 -m unittest bindings/python/examples/mock_app_test.py
"""

import unittest

from gregor import Consumer, Producer, TopicPartition
from gregor.mock import Cluster

PRODUCE = 0
NOT_LEADER_OR_FOLLOWER = 6


# ---- the application code under test ----

def publish_orders(bootstrap, topic, orders):
    """Publishes ``{id: body}`` keyed by id; returns the ids delivered."""
    delivered = []
    p = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True})
    for oid, body in orders.items():
        p.produce(topic, key=oid, value=body,
                  on_delivery=lambda err, msg: err is None and delivered.append(msg.key().decode()))
    p.flush(10)
    return delivered


def read_all(bootstrap, topic, n):
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "app-test", "auto.offset.reset": "earliest"})
    c.assign([TopicPartition(topic, 0, 0)])
    got = []
    for _ in range(100):
        if len(got) >= n:
            break
        m = c.poll(0.1)
        if m is not None and not m.error():
            got.append((m.key().decode(), m.value().decode()))
    c.close()
    return got


# ---- the tests ----

class OrdersTest(unittest.TestCase):
    def setUp(self):
        self.cluster = Cluster(3)
        self.cluster.create_topic("orders", partitions=1, replication=3)
        self.bs = self.cluster.bootstrap_servers

    def tearDown(self):
        self.cluster.close()

    def test_orders_are_published_in_order(self):
        orders = {"o-1": "2 apples", "o-2": "3 pears"}
        self.assertEqual(publish_orders(self.bs, "orders", orders), ["o-1", "o-2"])
        self.assertEqual(self.cluster.high_watermark("orders", 0), 2)
        self.assertEqual(read_all(self.bs, "orders", 2), list(orders.items()))

    def test_orders_survive_leader_errors_and_a_leader_move(self):
        self.cluster.start_request_tracking()
        self.cluster.push_request_errors(PRODUCE, [NOT_LEADER_OR_FOLLOWER] * 2)
        self.assertEqual(publish_orders(self.bs, "orders", {"o-1": "x"}), ["o-1"])
        self.cluster.set_partition_leader("orders", 0, 2)
        self.cluster.set_broker_rtt(2, 50)
        self.assertEqual(publish_orders(self.bs, "orders", {"o-2": "y"}), ["o-2"])
        self.assertEqual(read_all(self.bs, "orders", 2), [("o-1", "x"), ("o-2", "y")])
        produce_to = [r.broker_id for r in self.cluster.requests() if r.api_key == PRODUCE]
        self.assertGreaterEqual(len(produce_to), 4, produce_to)  # 2 failed + 1 retry + 1 on broker 2
        self.assertEqual(produce_to[-1], 2)
        # when each request came (microseconds since the cluster started), in order
        times = [r.timestamp_us for r in self.cluster.requests()]
        self.assertEqual(times, sorted(times))
        self.assertGreater(times[0], 0)

    def test_context_manager_and_errors(self):
        with Cluster(1) as c:
            bs = c.bootstrap_servers
            self.assertTrue(bs.startswith("127.0.0.1:"))
            c.create_topic("t", 2)
            with self.assertRaises(Exception):
                c.create_topic("t", 2)
            with self.assertRaises(Exception):
                c.broker_down(7)
            c.set_partition_follower("t", 1, 1)  # KIP-392, for consumers with a rack
            with self.assertRaises(Exception):
                c.set_partition_follower("t", 5, 1)
        with self.assertRaises(Exception):
            c.create_topic("u")


if __name__ == "__main__":
    unittest.main()
