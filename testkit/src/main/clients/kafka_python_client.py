"""kafka-python client for ClientFamiliesIT.

Usage: kafka_python_client.py BOOTSTRAP TOPIC COUNT PARTITIONS GROUP DEADLINE_SECONDS

Produces COUNT records (key k<i>, value v<i>, partition i % PARTITIONS), then consumes the topic
as consumer group GROUP from the earliest offset until COUNT records arrived or the deadline
passed. Prints one line per record read: "<partition> <offset> <key>". Exit code 0 when COUNT
records were read, 2 on the deadline, 1 on a delivery error.
"""
import sys
import time

from kafka import KafkaConsumer, KafkaProducer


def main():
    bootstrap, topic, count, partitions, group, deadline = sys.argv[1:7]
    count, partitions = int(count), int(partitions)
    give_up = time.monotonic() + float(deadline)

    producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all")
    sends = [producer.send(topic, key=f"k{i}".encode(), value=f"v{i}".encode(), partition=i % partitions)
             for i in range(count)]
    producer.flush(timeout=max(0.0, give_up - time.monotonic()))
    try:
        for send in sends:
            send.get(timeout=max(0.0, give_up - time.monotonic()))
    except Exception as e:  # a failed or undelivered record
        print(f"produce failed: {e!r}", file=sys.stderr)
        return 1
    finally:
        producer.close()
    print(f"produced {count}", file=sys.stderr)

    consumer = KafkaConsumer(topic, bootstrap_servers=bootstrap, group_id=group,
                             auto_offset_reset="earliest", enable_auto_commit=False)
    read = 0
    try:
        while read < count and time.monotonic() < give_up:
            for records in consumer.poll(timeout_ms=500).values():
                for record in records:
                    print(f"{record.partition} {record.offset} {record.key.decode()}", flush=True)
                    read += 1
    finally:
        consumer.close()
    return 0 if read >= count else 2


if __name__ == "__main__":
    sys.exit(main())
