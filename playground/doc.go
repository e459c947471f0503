// Package playground serves a browser page to work on a loom/v1 file: the
// declared agents and their composition tree, the YAML editable with the
// loader's errors shown at their lines (saved only when valid), a form per
// agent from its input schema, a run's output streaming beside its events,
// and pending approvals answered from the page.
//
// Runs belong to the server, not to the page: they run in the background
// with checkpoints, a pending approval is answered through
// [engine.Engine.Resume],
// and a page that is closed or reloaded picks the run up again. The page
// and its script are embedded (no CDN). The server listens on 127.0.0.1 by
// default, and every request needs the session token the server made,
// given in the URL, so another local user's page cannot drive it.
package playground
