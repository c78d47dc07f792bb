"""Ingest what real Kafka clusters record (pure Python, no Spark): ZooKeeper-mode
state-change.log / controller.log / server.log of every era, and KRaft metadata-log dumps,
turned into canonical events (schemas.events). The Spark job and the local tools call the
same code; `../shared/spec/kafka-log-formats.md` is the reference for every format."""
