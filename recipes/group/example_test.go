package group_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/recipes/group"
	"zkspeaker/recoverable"
)

// servers is a real ZooKeeper server for the examples and the tests,
// started by TestMain (none under -short).
var servers []string

func TestMain(m *testing.M) {
	os.Exit(zktest.Main(m, &servers))
}

// The chapter's run in one process, each program on a session of its own
// as if it were a process of its own. A watcher follows the zoo group from
// the start. Duck and cow join; cow's session ends, as when its process is
// killed, and ZooKeeper takes cow out of the group without anyone's help.
// Then the group is deleted, with duck still in it, in one multi; duck's
// Member notices that its group is gone.
func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	open := func() (*recoverable.RecoverableZookeeper, *group.Group, error) {
		rz, err := recoverable.Connect(servers, 2*time.Second, recoverable.WithLogger(quiet))
		if err != nil {
			return nil, nil, err
		}
		g, err := group.New(rz, "zoo")
		if err != nil {
			rz.Close()
			return nil, nil, err
		}
		return rz, g, nil
	}
	admin, zoo, err := open()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer admin.Close()
	if err := zoo.Create(ctx); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("created", zoo.Path())

	w := zoo.Watch()
	defer w.Close()
	show := func() {
		ch := <-w.Changes()
		switch {
		case ch.First:
			fmt.Printf("watch: %d members\n", len(ch.Members))
		case ch.Deleted:
			fmt.Println("watch: deleted, with", strings.Join(ch.Left, " "))
		default:
			fmt.Println("watch: joined", ch.Joined, "left", ch.Left)
		}
	}
	show()

	var sessions []*recoverable.RecoverableZookeeper
	defer func() {
		for _, rz := range sessions {
			rz.Close()
		}
	}()
	members := map[string]*group.Member{}
	for _, name := range []string{"duck", "cow"} {
		rz, g, err := open()
		if err != nil {
			fmt.Println(err)
			return
		}
		sessions = append(sessions, rz)
		if members[name], err = g.Join(ctx, name); err != nil {
			fmt.Println(err)
			return
		}
		show()
	}
	list, _ := zoo.List(ctx)
	fmt.Println("list:", list)

	sessions[1].Close() // cow's process is gone
	show()

	removed, err := zoo.Delete(ctx)
	fmt.Println("delete:", removed, err)
	show()
	<-members["duck"].Done()
	fmt.Println("duck:", members["duck"].Err())
	// Output:
	// created /zoo
	// watch: 0 members
	// watch: joined [duck] left []
	// watch: joined [cow] left []
	// list: [cow duck]
	// watch: joined [] left [cow]
	// delete: [duck] <nil>
	// watch: deleted, with duck
	// duck: group: no such group: /zoo
}
