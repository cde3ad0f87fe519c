package group_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/recipes/group"
	"zkspeaker/recoverable"
)

// An ACL refusal reads the same here as in every recipe: errors.Is(err,
// zk.ErrNoAuth). A group made with credentials refuses a join, and a
// delete, by a client without them; the creator may do both.
func TestACLRefusalIsErrNoAuth(t *testing.T) {
	t.Parallel()
	const creds = "ann:secret"
	access, _ := recoverable.Access(creds)
	owner, err := recoverable.Connect([]string{server(t)}, 4*time.Second, append(access, recoverable.WithLogger(zktest.Logger(t)))...)
	if err != nil {
		t.Fatal(err)
	}
	defer owner.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	name := groupName(t)
	mine, err := group.New(owner, name)
	if err != nil {
		t.Fatal(err)
	}
	if err := mine.Create(ctx); err != nil {
		t.Fatal(err)
	}
	theirs, err := group.New(connect(t, server(t), 4*time.Second), name)
	if err != nil {
		t.Fatal(err)
	}
	if m, err := theirs.Join(ctx, "intruder"); !errors.Is(err, zk.ErrNoAuth) {
		if m != nil {
			_ = m.Leave(ctx)
		}
		t.Fatalf("a join without the credentials: %v, want zk.ErrNoAuth", err)
	}
	m, err := mine.Join(ctx, "ann")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := theirs.Delete(ctx); !errors.Is(err, zk.ErrNoAuth) {
		t.Fatalf("a delete without the credentials: %v, want zk.ErrNoAuth", err)
	}
	if err := m.Leave(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := mine.Delete(ctx); err != nil {
		t.Fatalf("the creator's delete: %v", err)
	}
}
