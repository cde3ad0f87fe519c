module zkspeaker

go 1.22

require github.com/go-zookeeper/zk v1.0.4
