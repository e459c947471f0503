package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
)

// Attribute keys, and long attribute values that repeat in every run of an
// agent, are stored once, in the texts table, and a part refers to them by
// id: keys and an agent's description are most of the bytes of a run
// without content capture. Only the values of the keys below are shared,
// and only values of at least minSharedText bytes; a process shares at
// most maxSharedTexts texts (keys and values), so that texts that do not
// repeat cannot grow the table without bound.
const (
	minSharedText  = 64
	maxSharedTexts = 1024
)

// sharedKey reports whether values of key repeat from run to run.
func sharedKey(key attribute.Key) bool {
	switch key {
	case "gen_ai.agent.description", "gen_ai.system_instructions", "gen_ai.tool.definitions":
		return true
	}
	return false
}

// textIDs caches the ids of texts this process stored or found; it is
// guarded by Store.mu, which every write holds.
type textIDs map[string]int64

// textID returns the id of the stored text v, storing it within tx when it
// is new; ok is false when v is not shared (the cache is full). added
// records a new cache entry, dropped if the transaction fails.
func (in *inserter) textID(ctx context.Context, v string) (id int64, ok bool, err error) {
	if id, ok := in.texts[v]; ok {
		return id, true, nil
	}
	if len(in.texts) >= maxSharedTexts {
		return 0, false, nil
	}
	return in.storeText(ctx, v)
}

// storeText finds or stores text v within the transaction and caches its
// id: textID's slow path, apart so that v escapes only here.
func (in *inserter) storeText(ctx context.Context, v string) (id int64, ok bool, err error) {
	h := fnv.New64a()
	h.Write([]byte(v))
	sum := int64(h.Sum64())
	err = in.tx.QueryRowContext(ctx, `SELECT id FROM texts WHERE hash = ? AND value = ?`, sum, v).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		err = in.tx.QueryRowContext(ctx, `INSERT INTO texts (hash, value) VALUES (?, ?) RETURNING id`, sum, v).Scan(&id)
	}
	if err != nil {
		return 0, false, fmt.Errorf("store: store a shared attribute value: %w", err)
	}
	in.texts[v] = id
	in.added = append(in.added, v)
	return id, true, nil
}

// sharedRef says that attribute number idx is stored as text id.
type sharedRef struct {
	idx int
	id  int64
}

// sharedID returns the text id of attribute number idx, if it is shared.
func sharedID(refs []sharedRef, idx int) (int64, bool) {
	for _, r := range refs {
		if r.idx == idx {
			return r.id, true
		}
	}
	return 0, false
}

// shareTexts appends to refs the shared values among attrs.
func (in *inserter) shareTexts(ctx context.Context, attrs []attribute.KeyValue, refs []sharedRef) ([]sharedRef, error) {
	for i, kv := range attrs {
		if !sharedKey(kv.Key) || kv.Value.Type() != attribute.STRING || len(kv.Value.AsString()) < minSharedText {
			continue
		}
		id, ok, err := in.textID(ctx, kv.Value.AsString())
		if err != nil {
			return nil, err
		}
		if ok {
			refs = append(refs, sharedRef{idx: i, id: id})
		}
	}
	return refs, nil
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
