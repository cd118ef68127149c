package gen

import (
	"bytes"
	"fmt"
	"maps"
	"slices"

	"github.com/dave/jennifer/jen"
)

// EmitVocab renders what package sandbox reads of the bwrap vocabulary
// (sandbox/zz_vocab.go): which flags leave a fresh file system or a file
// at their destination, and which modify the next mount. It depends on the
// vocabulary alone; the table is not read.
func EmitVocab(*Table) ([]byte, error) {
	f := jen.NewFile("sandbox")
	f.HeaderComment(Header)
	var fresh, shown, modifiers, hostWrite, remount []jen.Code
	modOperands := -1
	for _, flag := range slices.Sorted(maps.Keys(bwrapFlags)) {
		spec := bwrapFlags[flag]
		if spec.hostWrite && spec.shows() {
			hostWrite = append(hostWrite, jen.Lit(flag))
		}
		if spec.mount == mountRemount {
			remount = append(remount, jen.Lit(flag))
		}
		switch {
		case spec.mount == mountFresh:
			fresh = append(fresh, jen.Lit(flag))
		case spec.shows():
			shown = append(shown, jen.Lit(flag))
		case spec.mount == mountModifier:
			if modOperands >= 0 && spec.operands != modOperands {
				return nil, fmt.Errorf("emit vocab: %s takes %d operands, the other modifiers %d", flag, spec.operands, modOperands)
			}
			modOperands = spec.operands
			modifiers = append(modifiers, jen.Lit(flag))
		}
	}
	f.Comment("mountEffect is what a bwrap flag leaves at its destination: the mount")
	f.Comment("column of the generator's bwrap vocabulary, gen/vocab_bwrap.go.")
	f.Type().Id("mountEffect").Uint8()
	f.Const().Defs(
		jen.Id("mountNone").Id("mountEffect").Op("=").Iota().Comment("no mount there, or one that keeps what it covers"),
		jen.Id("mountFresh").Comment("a new file system: nothing of the host's remains under it"),
		jen.Id("mountShown").Comment("a bind or a file from a descriptor: a file is there"),
	)
	f.Comment("bwrapMount is what flag leaves at its destination.")
	f.Func().Id("bwrapMount").Params(jen.Id("flag").String()).Id("mountEffect").Block(
		jen.Switch(jen.Id("flag")).Block(
			jen.Case(fresh...).Block(jen.Return(jen.Id("mountFresh"))),
			jen.Case(shown...).Block(jen.Return(jen.Id("mountShown"))),
		),
		jen.Return(jen.Id("mountNone")),
	)
	f.Comment("bwrapModifier is how many operands flag takes if it modifies the next")
	f.Comment("mount rather than making one, and 0 otherwise.")
	f.Func().Id("bwrapModifier").Params(jen.Id("flag").String()).Int().Block(
		jen.Switch(jen.Id("flag")).Block(
			jen.Case(modifiers...).Block(jen.Return(jen.Lit(modOperands))),
		),
		jen.Return(jen.Lit(0)),
	)
	f.Comment("bwrapHostWrite reports whether flag binds a host path writable at its")
	f.Comment("destination: writes there land on the host.")
	f.Func().Id("bwrapHostWrite").Params(jen.Id("flag").String()).Bool().Block(
		jen.Switch(jen.Id("flag")).Block(
			jen.Case(hostWrite...).Block(jen.Return(jen.True())),
		),
		jen.Return(jen.False()),
	)
	f.Comment("bwrapRemountRO reports whether flag makes the mount at its destination")
	f.Comment("read-only.")
	f.Func().Id("bwrapRemountRO").Params(jen.Id("flag").String()).Bool().Block(
		jen.Switch(jen.Id("flag")).Block(
			jen.Case(remount...).Block(jen.Return(jen.True())),
		),
		jen.Return(jen.False()),
	)
	var buf bytes.Buffer
	if err := f.Render(&buf); err != nil {
		return nil, fmt.Errorf("emit vocab: %w", err)
	}
	return buf.Bytes(), nil
}
