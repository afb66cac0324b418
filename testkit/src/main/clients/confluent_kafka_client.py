"""confluent-kafka-python (librdkafka) client for ClientFamiliesIT.

Usage: confluent_kafka_client.py BOOTSTRAP TOPIC COUNT PARTITIONS GROUP DEADLINE_SECONDS

Produces COUNT records (key k<i>, value v<i>, partition i % PARTITIONS), then consumes the topic
as consumer group GROUP from the earliest offset until COUNT records arrived or the deadline
passed. Prints one line per record read: "<partition> <offset> <key>". Exit code 0 when COUNT
records were read, 2 on the deadline, 1 on a delivery error. Extra client settings (TLS, for
instance) come as a JSON object in the environment variable KAFSCALE_TEST_CLIENT_CONFIG.
"""
import json
import os
import sys
import time

from confluent_kafka import Consumer, Producer


def main():
    bootstrap, topic, count, partitions, group, deadline = sys.argv[1:7]
    count, partitions = int(count), int(partitions)
    give_up = time.monotonic() + float(deadline)

    extra = json.loads(os.environ.get("KAFSCALE_TEST_CLIENT_CONFIG", "{}"))
    failures = []
    producer = Producer({"bootstrap.servers": bootstrap, "message.timeout.ms": int(float(deadline) * 1000),
                         **extra})
    for i in range(count):
        producer.produce(topic, key=f"k{i}", value=f"v{i}", partition=i % partitions,
                         on_delivery=lambda err, msg: failures.append(err) if err else None)
        producer.poll(0)
    producer.flush(max(0.0, give_up - time.monotonic()))
    if failures or len(producer) > 0:
        print(f"produce failed: {failures[:3]} undelivered={len(producer)}", file=sys.stderr)
        return 1
    print(f"produced {count}", file=sys.stderr)

    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group,
                         "auto.offset.reset": "earliest", "enable.auto.commit": False, **extra})
    consumer.subscribe([topic])
    read = 0
    try:
        while read < count and time.monotonic() < give_up:
            msg = consumer.poll(0.5)
            if msg is None:
                continue
            if msg.error():
                print(f"consume error: {msg.error()}", file=sys.stderr)
                continue
            print(f"{msg.partition()} {msg.offset()} {msg.key().decode()}", flush=True)
            read += 1
    finally:
        consumer.close()
    return 0 if read >= count else 2


if __name__ == "__main__":
    sys.exit(main())
