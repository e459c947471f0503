package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
	"sync"

	"go.opentelemetry.io/otel/attribute"
)

// Attribute keys, and long attribute values that repeat in every run of an
// agent, are stored once, in the texts table, and a part refers to them by
// id: keys and an agent's description are most of the bytes of a run
// without content capture. Only the values of a few keys are shared (see
// sharedValue), and only values of at least minSharedText bytes; a process
// shares at most maxSharedTexts texts (keys and values), so that texts
// that do not repeat cannot grow the table without bound. The first parts
// a process writes carry their keys and values in place; the write stores
// them, and parts encoded after it refer to them.
const (
	minSharedText  = 64
	maxSharedTexts = 1024
)

// sharedValue reports whether kv's value is one that repeats from run to
// run: a long string under one of the keys below.
func sharedValue(kv attribute.KeyValue) bool {
	switch kv.Key {
	case "gen_ai.agent.description", "gen_ai.system_instructions", "gen_ai.tool.definitions":
		return kv.Value.Type() == attribute.STRING && len(kv.Value.AsString()) >= minSharedText
	}
	return false
}

// textCache holds the ids of the texts a store has stored or found, for
// encoders on any goroutine. A write adds the texts it stored only once
// it committed, so that no part refers to a text a failed write lost.
type textCache struct {
	mu   sync.RWMutex
	ids  map[string]int64
	full bool // the table reached the store's bounds: share nothing more
}

// publish adds stored to the cache, as far as maxSharedTexts allows.
func (c *textCache) publish(stored map[string]int64) {
	if len(stored) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for v, id := range stored {
		if len(c.ids) >= maxSharedTexts {
			return
		}
		c.ids[v] = id
	}
}

// shareWanted finds or stores, within the transaction, the texts that a
// part carried in place, adding their ids to stored; the cache takes them
// once the write commits. The texts already in the table are found with
// one query per batch of findBatch, not one per text: a process's first
// write wants every attribute key its runs use.
func (in *inserter) shareWanted(ctx context.Context, wanted []string, stored map[string]int64) error {
	in.texts.mu.RLock()
	room := maxSharedTexts - len(in.texts.ids) - len(stored)
	full := in.texts.full
	var todo []string
	for _, v := range wanted {
		if _, ok := stored[v]; ok || slices.Contains(todo, v) {
			continue
		}
		if _, cached := in.texts.ids[v]; !cached {
			todo = append(todo, v)
		}
	}
	in.texts.mu.RUnlock()
	if full || room <= 0 || len(todo) == 0 {
		return nil
	}
	todo = todo[:min(len(todo), room)]
	found, err := in.findTexts(ctx, todo)
	if err != nil {
		return err
	}
	for _, v := range todo {
		if id, ok := found[v]; ok {
			stored[v] = id
			continue
		}
		id, ok, err := in.insertText(ctx, v)
		if err != nil {
			return err
		}
		if !ok {
			// The table is full: this value, and every one not shared
			// yet, stays within its runs from now on.
			in.texts.mu.Lock()
			in.texts.full = true
			in.texts.mu.Unlock()
			return nil
		}
		stored[v] = id
	}
	return nil
}

// findBatch is how many texts one query looks up.
const findBatch = 100

// textHash is the texts table's hash of v.
func textHash(v string) int64 {
	h := fnv.New64a()
	h.Write([]byte(v))
	return int64(h.Sum64())
}

// findTexts returns the ids of those of vs that the table holds.
func (in *inserter) findTexts(ctx context.Context, vs []string) (map[string]int64, error) {
	found := make(map[string]int64, len(vs))
	want := make(map[string]bool, len(vs))
	for _, v := range vs {
		want[v] = true
	}
	for chunk := range slices.Chunk(vs, findBatch) {
		args := make([]any, len(chunk))
		for i, v := range chunk {
			args[i] = textHash(v)
		}
		q := `SELECT id, value FROM texts WHERE hash IN (?` + strings.Repeat(`, ?`, len(chunk)-1) + `)`
		rows, err := in.tx.QueryContext(ctx, q, args...)
		if err != nil {
			return nil, fmt.Errorf("store: find the shared attribute keys and values: %w", err)
		}
		for rows.Next() {
			var id int64
			var v string
			if err := rows.Scan(&id, &v); err != nil {
				rows.Close()
				return nil, fmt.Errorf("store: find the shared attribute keys and values: %w", err)
			}
			if want[v] {
				found[v] = id
			}
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("store: find the shared attribute keys and values: %w", err)
		}
	}
	return found, nil
}

// insertText stores text v when the table has room, within the
// transaction; ok is false when v was not stored for want of room.
func (in *inserter) insertText(ctx context.Context, v string) (id int64, ok bool, err error) {
	if room, rerr := in.textRoom(ctx, len(v)); rerr != nil || !room {
		return 0, false, rerr
	}
	if err = in.tx.QueryRowContext(ctx, `INSERT INTO texts (hash, value) VALUES (?, ?) RETURNING id`, textHash(v), v).Scan(&id); err != nil {
		return 0, false, fmt.Errorf("store: store a shared attribute key or value: %w", err)
	}
	in.textRows++
	in.textBytes += int64(len(v))
	return id, true, nil
}

// textRoom reports whether the texts table, as this transaction sees it,
// takes one more text of n bytes within the store's bounds.
func (in *inserter) textRoom(ctx context.Context, n int) (bool, error) {
	c := in.cfg
	if c.maxTexts <= 0 && c.maxTextSize <= 0 {
		return true, nil
	}
	if !in.textsCounted {
		if err := in.tx.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(length(CAST(value AS BLOB))), 0) FROM texts`).Scan(&in.textRows, &in.textBytes); err != nil {
			return false, fmt.Errorf("store: count the shared texts: %w", err)
		}
		in.textsCounted = true
	}
	return (c.maxTexts <= 0 || in.textRows < int64(c.maxTexts)) &&
		(c.maxTextSize <= 0 || in.textBytes+int64(n) <= c.maxTextSize), nil
}

// appendTextRef appends the stored form of a shared value.
func appendTextRef(b []byte, id int64) []byte {
	b = append(b, `{"$text":`...)
	b = strconv.AppendInt(b, id, 10)
	return append(b, '}')
}

// resolveTexts replaces the {"$text": id} values of attrs with their text,
// read within tx; got caches texts across the spans of one query.
func resolveTexts(ctx context.Context, tx *sql.Tx, attrs map[string]any, got map[int64]string) error {
	for k, v := range attrs {
		ref, ok := v.(map[string]any)
		if !ok {
			continue
		}
		n, ok := ref["$text"].(json.Number)
		id, err := n.Int64()
		if !ok || err != nil {
			return fmt.Errorf("attribute %s holds an object that is not a text reference", k)
		}
		if attrs[k], err = text(ctx, tx, id, got); err != nil {
			return fmt.Errorf("attribute %s: %w", k, err)
		}
	}
	return nil
}

// text returns stored text id, read within tx unless got has it.
func text(ctx context.Context, tx *sql.Tx, id int64, got map[int64]string) (string, error) {
	if t, ok := got[id]; ok {
		return t, nil
	}
	var t string
	if err := tx.QueryRowContext(ctx, `SELECT value FROM texts WHERE id = ?`, id).Scan(&t); err != nil {
		return "", fmt.Errorf("text %d: %w", id, err)
	}
	got[id] = t
	return t, nil
}
