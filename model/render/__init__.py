"""Drawing states as the seeds draw them: znode trees and ``hbase:replication`` rows. Pure."""
