package evals

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// pyNode is a parsed Python expression.
type pyNode struct {
	kind string // num str name const list tuple dict set call kw attr index slice unary bin cmp not and or ifexp
	val  string // the literal, name, attribute or operator
	kids []*pyNode
}

// pyParser parses the Python expressions HumanEval's tests are written in:
// literals, names, calls (with keyword arguments), attributes, subscripts
// and slices, and the arithmetic, comparison and boolean operators.
type pyParser struct {
	toks []token
	i    int
}

// parsePy parses src as one expression that uses all of it.
func parsePy(src string) (*pyNode, error) {
	toks, err := tokenize(src)
	if err != nil {
		return nil, err
	}
	p := &pyParser{toks: toks}
	n, err := p.exprList()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tokEOF {
		return nil, fmt.Errorf("unexpected %q at byte %d", t.text, t.pos)
	}
	return n, nil
}

func (p *pyParser) peek() token { return p.toks[p.i] }

func (p *pyParser) next() token {
	t := p.toks[p.i]
	if t.kind != tokEOF {
		p.i++
	}
	return t
}

// isOp reports whether the next token is the operator or keyword s.
func (p *pyParser) isOp(s string) bool {
	t := p.peek()
	return (t.kind == tokOp || t.kind == tokName) && t.text == s
}

func (p *pyParser) accept(s string) bool {
	if p.isOp(s) {
		p.i++
		return true
	}
	return false
}

func (p *pyParser) expect(s string) error {
	if !p.accept(s) {
		t := p.peek()
		if t.kind == tokEOF {
			return fmt.Errorf("expected %q, found the end", s)
		}
		return fmt.Errorf("expected %q, found %q at byte %d", s, t.text, t.pos)
	}
	return nil
}

// exprList parses an expression, or a bare tuple "a, b".
func (p *pyParser) exprList() (*pyNode, error) {
	n, err := p.expr()
	if err != nil || !p.isOp(",") {
		return n, err
	}
	items := []*pyNode{n}
	for p.accept(",") {
		if p.endsGroup() {
			break
		}
		m, err := p.expr()
		if err != nil {
			return nil, err
		}
		items = append(items, m)
	}
	return &pyNode{kind: "tuple", val: "bare", kids: items}, nil
}

func (p *pyParser) endsGroup() bool {
	t := p.peek()
	return t.kind == tokEOF || t.kind == tokOp && (t.text == ")" || t.text == "]" || t.text == "}")
}

func (p *pyParser) expr() (*pyNode, error) {
	n, err := p.orTest()
	if err != nil {
		return nil, err
	}
	if !p.accept("if") {
		return n, nil
	}
	cond, err := p.orTest()
	if err != nil {
		return nil, err
	}
	if err := p.expect("else"); err != nil {
		return nil, err
	}
	alt, err := p.expr()
	if err != nil {
		return nil, err
	}
	return &pyNode{kind: "ifexp", kids: []*pyNode{cond, n, alt}}, nil
}

func (p *pyParser) orTest() (*pyNode, error)  { return p.boolChain("or", p.andTest) }
func (p *pyParser) andTest() (*pyNode, error) { return p.boolChain("and", p.notTest) }

func (p *pyParser) boolChain(op string, sub func() (*pyNode, error)) (*pyNode, error) {
	n, err := sub()
	if err != nil {
		return nil, err
	}
	for p.accept(op) {
		m, err := sub()
		if err != nil {
			return nil, err
		}
		n = &pyNode{kind: op, kids: []*pyNode{n, m}}
	}
	return n, nil
}

func (p *pyParser) notTest() (*pyNode, error) {
	if p.accept("not") {
		n, err := p.notTest()
		if err != nil {
			return nil, err
		}
		return &pyNode{kind: "not", kids: []*pyNode{n}}, nil
	}
	return p.comparison()
}

// comparison parses a comparison chain; a < b < c becomes (a < b) and (b < c).
func (p *pyParser) comparison() (*pyNode, error) {
	left, err := p.arith()
	if err != nil {
		return nil, err
	}
	var out *pyNode
	for {
		op := ""
		switch {
		case p.isOp("==") || p.isOp("!=") || p.isOp("<") || p.isOp(">") || p.isOp("<=") || p.isOp(">=") || p.isOp("in"):
			op = p.next().text
		case p.isOp("is"):
			p.next()
			op = "is"
			if p.accept("not") {
				op = "is not"
			}
		case p.isOp("not") && p.toks[p.i+1].text == "in":
			p.i += 2
			op = "not in"
		}
		if op == "" {
			break
		}
		right, err := p.arith()
		if err != nil {
			return nil, err
		}
		c := &pyNode{kind: "cmp", val: op, kids: []*pyNode{left, right}}
		if out == nil {
			out = c
		} else {
			out = &pyNode{kind: "and", kids: []*pyNode{out, c}}
		}
		left = right
	}
	if out == nil {
		return left, nil
	}
	return out, nil
}

func (p *pyParser) arith() (*pyNode, error) {
	return p.binary([]string{"+", "-"}, p.term)
}

func (p *pyParser) term() (*pyNode, error) {
	return p.binary([]string{"*", "/", "//", "%"}, p.factor)
}

func (p *pyParser) binary(ops []string, sub func() (*pyNode, error)) (*pyNode, error) {
	n, err := sub()
	if err != nil {
		return nil, err
	}
	for {
		op := ""
		for _, o := range ops {
			if p.peek().kind == tokOp && p.peek().text == o {
				op = o
			}
		}
		if op == "" {
			return n, nil
		}
		p.next()
		m, err := sub()
		if err != nil {
			return nil, err
		}
		n = &pyNode{kind: "bin", val: op, kids: []*pyNode{n, m}}
	}
}

func (p *pyParser) factor() (*pyNode, error) {
	if t := p.peek(); t.kind == tokOp && (t.text == "-" || t.text == "+") {
		p.next()
		n, err := p.factor()
		if err != nil {
			return nil, err
		}
		if n.kind == "num" && t.text == "-" {
			return &pyNode{kind: "num", val: "-" + n.val}, nil
		}
		return &pyNode{kind: "unary", val: t.text, kids: []*pyNode{n}}, nil
	}
	n, err := p.primary()
	if err != nil {
		return nil, err
	}
	if p.peek().kind == tokOp && p.peek().text == "**" {
		p.next()
		m, err := p.factor()
		if err != nil {
			return nil, err
		}
		return &pyNode{kind: "bin", val: "**", kids: []*pyNode{n, m}}, nil
	}
	return n, nil
}

func (p *pyParser) primary() (*pyNode, error) {
	n, err := p.atom()
	if err != nil {
		return nil, err
	}
	for {
		switch {
		case p.peek().kind == tokOp && p.peek().text == "(":
			p.next()
			args, err := p.args()
			if err != nil {
				return nil, err
			}
			n = &pyNode{kind: "call", kids: append([]*pyNode{n}, args...)}
		case p.peek().kind == tokOp && p.peek().text == "[":
			p.next()
			n, err = p.subscript(n)
			if err != nil {
				return nil, err
			}
		case p.peek().kind == tokOp && p.peek().text == ".":
			p.next()
			t := p.next()
			if t.kind != tokName {
				return nil, fmt.Errorf("expected an attribute name at byte %d", t.pos)
			}
			n = &pyNode{kind: "attr", val: t.text, kids: []*pyNode{n}}
		default:
			return n, nil
		}
	}
}

// args parses a call's arguments after "(", keyword arguments as kw nodes.
func (p *pyParser) args() ([]*pyNode, error) {
	var args []*pyNode
	for !p.accept(")") {
		if t := p.peek(); t.kind == tokName && p.toks[p.i+1].kind == tokOp && p.toks[p.i+1].text == "=" {
			p.i += 2
			v, err := p.expr()
			if err != nil {
				return nil, err
			}
			args = append(args, &pyNode{kind: "kw", val: t.text, kids: []*pyNode{v}})
		} else {
			v, err := p.expr()
			if err != nil {
				return nil, err
			}
			if p.isOp("for") {
				return nil, fmt.Errorf("generator expressions are not supported")
			}
			args = append(args, v)
		}
		if !p.accept(",") {
			if err := p.expect(")"); err != nil {
				return nil, err
			}
			break
		}
	}
	return args, nil
}

// subscript parses x[i] or x[lo:hi:step] after "[".
func (p *pyParser) subscript(x *pyNode) (*pyNode, error) {
	var parts [3]*pyNode
	colons := 0
	for {
		if p.accept("]") {
			break
		}
		if p.accept(":") {
			colons++
			if colons > 2 {
				return nil, fmt.Errorf("too many colons in a slice")
			}
			continue
		}
		v, err := p.expr()
		if err != nil {
			return nil, err
		}
		parts[colons] = v
	}
	if colons == 0 {
		if parts[0] == nil {
			return nil, fmt.Errorf("empty subscript")
		}
		return &pyNode{kind: "index", kids: []*pyNode{x, parts[0]}}, nil
	}
	return &pyNode{kind: "slice", kids: []*pyNode{x, parts[0], parts[1], parts[2]}}, nil
}

func (p *pyParser) atom() (*pyNode, error) {
	t := p.next()
	switch t.kind {
	case tokNumber:
		return &pyNode{kind: "num", val: t.text}, nil
	case tokString:
		s := t.text
		for p.peek().kind == tokString { // implicit concatenation
			s += p.next().text
		}
		return &pyNode{kind: "str", val: s}, nil
	case tokName:
		switch t.text {
		case "True", "False", "None":
			return &pyNode{kind: "const", val: t.text}, nil
		case "lambda", "for", "yield", "await":
			return nil, fmt.Errorf("%q expressions are not supported", t.text)
		}
		return &pyNode{kind: "name", val: t.text}, nil
	case tokOp:
		switch t.text {
		case "(":
			if p.accept(")") {
				return &pyNode{kind: "tuple"}, nil
			}
			n, err := p.exprList()
			if err != nil {
				return nil, err
			}
			if p.isOp("for") {
				return nil, fmt.Errorf("generator expressions are not supported")
			}
			if err := p.expect(")"); err != nil {
				return nil, err
			}
			if n.kind == "tuple" {
				return n, nil
			}
			return &pyNode{kind: "paren", kids: []*pyNode{n}}, nil
		case "[":
			items, err := p.items("]")
			if err != nil {
				return nil, err
			}
			return &pyNode{kind: "list", kids: items}, nil
		case "{":
			return p.dictOrSet()
		}
	case tokEOF:
		return nil, fmt.Errorf("unexpected end of expression")
	}
	return nil, fmt.Errorf("unexpected %q at byte %d", t.text, t.pos)
}

func (p *pyParser) items(end string) ([]*pyNode, error) {
	var items []*pyNode
	for !p.accept(end) {
		v, err := p.expr()
		if err != nil {
			return nil, err
		}
		if p.isOp("for") {
			return nil, fmt.Errorf("comprehensions are not supported")
		}
		items = append(items, v)
		if !p.accept(",") {
			if err := p.expect(end); err != nil {
				return nil, err
			}
			break
		}
	}
	return items, nil
}

func (p *pyParser) dictOrSet() (*pyNode, error) {
	if p.accept("}") {
		return &pyNode{kind: "dict"}, nil
	}
	first, err := p.expr()
	if err != nil {
		return nil, err
	}
	if !p.accept(":") {
		rest := []*pyNode{first}
		if p.accept(",") {
			more, err := p.items("}")
			if err != nil {
				return nil, err
			}
			rest = append(rest, more...)
		} else if err := p.expect("}"); err != nil {
			return nil, err
		}
		return &pyNode{kind: "set", kids: rest}, nil
	}
	kids := []*pyNode{first}
	for {
		v, err := p.expr()
		if err != nil {
			return nil, err
		}
		kids = append(kids, v)
		if !p.accept(",") || p.isOp("}") {
			break
		}
		k, err := p.expr()
		if err != nil {
			return nil, err
		}
		if err := p.expect(":"); err != nil {
			return nil, err
		}
		kids = append(kids, k)
	}
	if err := p.expect("}"); err != nil {
		return nil, err
	}
	return &pyNode{kind: "dict", kids: kids}, nil
}

// jsString is s as a JavaScript string literal.
func jsString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	out := strings.TrimSuffix(b.String(), "\n")
	out = strings.ReplaceAll(out, "\u2028", `\u2028`)
	return strings.ReplaceAll(out, "\u2029", `\u2029`)
}
