package spec

import "errors"

// InProcess is the sandbox kind that runs code in the host process. Any
// snippet can kill a process that runs it in process (a Go stack overflow
// cannot be recovered), so a file must mark such a sandbox trusted: true
// and the program that loads it must consent ([Registry].TrustedCode).
const InProcess = "in_process"

// sandboxOf returns the sandbox settings of an entry that runs code, or
// nil.
func sandboxOf(e *Entry) *Sandbox {
	switch c := e.Config.(type) {
	case *CodeExecution:
		return &c.Sandbox
	case *Function:
		return &c.Sandbox
	case *Graph:
		return &c.Sandbox
	}
	return nil
}

// checkSandboxTrust refuses a sandbox of kind in_process that the file
// does not mark trusted: true.
func (d *Doc) checkSandboxTrust(c *checker) {
	for _, e := range d.Agents {
		s := sandboxOf(e)
		if s == nil || s.Kind != InProcess || s.Trusted {
			continue
		}
		p := join(join(join("agents", e.Name), "sandbox"), "kind")
		c.fail(d.pos[p], p, "use kind: isolated (the default, a worker process with OS limits), or, only if the code is trusted, add trusted: true to this sandbox (the program running the file must consent too: loom's --trusted-code)",
			"sandbox kind in_process runs the code in this process, where any snippet can kill it; it is for trusted code only, and this sandbox does not say trusted: true")
	}
}

// InProcessEntries returns the names of the entries whose sandbox is
// kind: in_process, in file order: the entries that need the program's
// consent ([Registry].TrustedCode) to be built.
func (d *Doc) InProcessEntries() []string {
	var out []string
	for _, e := range d.Agents {
		if s := sandboxOf(e); s != nil && s.Kind == InProcess {
			out = append(out, e.Name)
		}
	}
	return out
}

// inProcessAllowed checks that an in_process sandbox is marked trusted by
// the file and consented to by the program.
func inProcessAllowed(s Sandbox, consent bool) error {
	const what = "sandbox kind in_process runs the code in this process, where any snippet can kill it; it is for trusted code only: "
	switch {
	case !s.Trusted:
		return errors.New(what + "the sandbox does not say trusted: true; use kind: isolated, or mark it trusted if the code is")
	case !consent:
		return errors.New(what + "the file marks it trusted, and the program must consent as well (spec.Registry.TrustedCode; loom's --trusted-code flag), or use kind: isolated")
	}
	return nil
}
