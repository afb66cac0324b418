// Sarama client for ClientFamiliesIT (Debian's golang-github-shopify-sarama-dev, GOPATH mode).
//
// Usage: sarama-client BOOTSTRAP TOPIC COUNT PARTITIONS DEADLINE_SECONDS
//
// Produces COUNT records (key k<i>, value v<i>, partition i % PARTITIONS) with a synchronous
// producer, then reads every partition from the oldest offset (Sarama's partition consumer: it
// follows each partition's leader) until COUNT records arrived or the deadline passed. Prints one
// line per record read: "<partition> <offset> <key>". Exit code 0 when COUNT records were read,
// 2 on the deadline, 1 on an error.
package main

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/Shopify/sarama"
)

func main() {
	os.Exit(run())
}

func run() int {
	if len(os.Args) != 6 {
		fmt.Fprintln(os.Stderr, "usage: sarama-client BOOTSTRAP TOPIC COUNT PARTITIONS DEADLINE_SECONDS")
		return 1
	}
	bootstrap, topic := os.Args[1], os.Args[2]
	count, _ := strconv.Atoi(os.Args[3])
	partitions, _ := strconv.Atoi(os.Args[4])
	deadlineSeconds, _ := strconv.Atoi(os.Args[5])
	giveUp := time.After(time.Duration(deadlineSeconds) * time.Second)

	cfg := sarama.NewConfig()
	// Sarama's default protocol version (0.8.2) uses API versions that Kafka 4 removed.
	cfg.Version = sarama.V2_1_0_0
	cfg.Producer.Return.Successes = true
	cfg.Producer.RequiredAcks = sarama.WaitForAll
	cfg.Producer.Partitioner = sarama.NewManualPartitioner

	producer, err := sarama.NewSyncProducer([]string{bootstrap}, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "producer:", err)
		return 1
	}
	messages := make([]*sarama.ProducerMessage, 0, count)
	for i := 0; i < count; i++ {
		messages = append(messages, &sarama.ProducerMessage{Topic: topic, Partition: int32(i % partitions),
			Key: sarama.StringEncoder(fmt.Sprintf("k%d", i)), Value: sarama.StringEncoder(fmt.Sprintf("v%d", i))})
	}
	if err := producer.SendMessages(messages); err != nil {
		fmt.Fprintln(os.Stderr, "produce failed:", err)
		return 1
	}
	producer.Close()
	fmt.Fprintf(os.Stderr, "produced %d\n", count)

	consumer, err := sarama.NewConsumer([]string{bootstrap}, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "consumer:", err)
		return 1
	}
	defer consumer.Close()
	records := make(chan *sarama.ConsumerMessage)
	for p := 0; p < partitions; p++ {
		pc, err := consumer.ConsumePartition(topic, int32(p), sarama.OffsetOldest)
		if err != nil {
			fmt.Fprintln(os.Stderr, "consume partition", p, ":", err)
			return 1
		}
		defer pc.Close()
		go func(pc sarama.PartitionConsumer) {
			for m := range pc.Messages() {
				records <- m
			}
		}(pc)
		go func(pc sarama.PartitionConsumer) {
			for e := range pc.Errors() {
				fmt.Fprintln(os.Stderr, "consume error:", e)
			}
		}(pc)
	}
	for read := 0; read < count; read++ {
		select {
		case m := <-records:
			fmt.Printf("%d %d %s\n", m.Partition, m.Offset, string(m.Key))
		case <-giveUp:
			return 2
		}
	}
	return 0
}
