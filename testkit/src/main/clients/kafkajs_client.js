// kafkajs client for ClientFamiliesIT.
//
// Usage: node kafkajs_client.js BOOTSTRAP TOPIC COUNT PARTITIONS GROUP DEADLINE_SECONDS
//
// Produces COUNT records (key k<i>, value v<i>, partition i % PARTITIONS), then consumes the topic
// as consumer group GROUP from the beginning until COUNT records arrived or the deadline passed.
// Prints one line per record read: "<partition> <offset> <key>". Exit code 0 when COUNT records
// were read, 2 on the deadline, 1 on an error. kafkajs is found through NODE_PATH.
const { Kafka, logLevel } = require('kafkajs');

async function main() {
  const [bootstrap, topic, countArg, partitionsArg, group, deadlineArg] = process.argv.slice(2);
  const count = Number(countArg);
  const partitions = Number(partitionsArg);
  const deadlineMs = Number(deadlineArg) * 1000;
  const kafka = new Kafka({ clientId: 'client-families', brokers: [bootstrap], logLevel: logLevel.WARN });

  const producer = kafka.producer();
  await producer.connect();
  const messages = [];
  for (let i = 0; i < count; i++) {
    messages.push({ key: `k${i}`, value: `v${i}`, partition: i % partitions });
  }
  await producer.send({ topic, messages });
  await producer.disconnect();
  console.error(`produced ${count}`);

  const consumer = kafka.consumer({ groupId: group });
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  let read = 0;
  const done = new Promise((resolve) => {
    const timer = setTimeout(() => resolve(2), deadlineMs);
    consumer.run({
      autoCommit: false,
      eachMessage: async ({ partition, message }) => {
        process.stdout.write(`${partition} ${message.offset} ${message.key.toString()}\n`);
        read++;
        if (read >= count) {
          clearTimeout(timer);
          resolve(0);
        }
      },
    });
  });
  const code = await done;
  await consumer.disconnect();
  return code;
}

main().then((code) => process.exit(code), (err) => {
  console.error(`failed: ${err && err.stack ? err.stack : err}`);
  process.exit(1);
});
