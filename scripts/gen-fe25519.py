#!/usr/bin/env python3
# Generates helmet-secagg/src/main/java/dev/helmet/secagg/crypto/Fe25519Vector.java: batched
# GF(2^255-19) arithmetic for X25519Vector, radix 2^25.5 (10 signed limbs, 26/25 bits), one
# LongVector (256 bits, 4 lanes) per limb, one lane per independent field element.
#
# Usage (from the repository root): python3 scripts/gen-fe25519.py
# The output is checked in; regenerate it after editing this script and commit both.
import os

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helmet-secagg", "src", "main", "java",
                   "dev", "helmet", "secagg", "crypto", "Fe25519Vector.java")

def m19(x):
    return f"{x}.mul(19L)"
# Layout of a field element batch in a long[]: limb i of lane l at index off + i*L + l.
W = [26,25,26,25,26,25,26,25,26,25]
out = []
def emit(s=""): out.append(s)

def loads(name, arr):
    for i in range(10):
        emit(f"        LongVector {name}{i} = LongVector.fromArray(S, {arr}, {i}*L);")

def carry_chain(h):
    # ref10 ordering (two interleaved chains for ILP); floor carry + mask (limbs end >= 0 except h1 small)
    def c(i):
        j = (i+1) % 10
        w = W[i]
        emit(f"        {{ LongVector c = {h}{i}.lanewise(VectorOperators.ASHR, {w}); {h}{i} = {h}{i}.and({(1<<w)-1}L); "
             + (f"{h}{j} = {h}{j}.add({m19('c')}); }}" if i == 9 else f"{h}{j} = {h}{j}.add(c); }}"))
    for i in [0,4,1,5,2,6,3,7,4,8,9,0]:
        c(i)

def stores(h, arr):
    for i in range(10):
        emit(f"        {h}{i}.intoArray({arr}, {i}*L);")

def gen_mul():
    emit("    /** h = f*g (any aliasing allowed). Inputs: |limbs| <= ~2^27. Output carried. */")
    emit("    static void mul(long[] h, long[] f, long[] g) {")
    loads("f","f"); loads("g","g")
    for j in range(1,10):
        emit(f"        LongVector g{j}_19 = {m19('g'+str(j))};")
    for i in range(1,10,2):
        emit(f"        LongVector f{i}_2 = f{i}.add(f{i});")
    for k in range(10):
        terms=[]
        for i in range(10):
            j=(k-i)%10
            fa = f"f{i}_2" if (i%2 and j%2) else f"f{i}"
            gb = f"g{j}_19" if i+j>=10 else f"g{j}"
            terms.append(f"{fa}.mul({gb})")
        emit(f"        LongVector h{k} = " + terms[0] + "".join(f".add({t})" for t in terms[1:]) + ";")
    carry_chain("h"); stores("h","h")
    emit("    }")

def gen_sq(name="sq", loop=False):
    if loop:
        emit("    /** h = f^(2^n), n >= 1. */")
        emit(f"    static void {name}(long[] h, long[] f, int n) {{")
    else:
        emit("    /** h = f^2. */")
        emit(f"    static void {name}(long[] h, long[] f) {{")
    loads("f","f")
    if loop:
        emit("        for (int it = 0; it < n; it++) {")
    need=set(); body=[]
    for k in range(10):
        terms=[]
        for i in range(10):
            for j in range(i,10):
                if (i+j)%10!=k: continue
                a = (1 if i==j else 2) * (2 if (i%2 and j%2) else 1)
                b = 19 if i+j>=10 else 1
                l = f"f{i}" if a==1 else f"f{i}_{a}"
                r = f"f{j}" if b==1 else f"f{j}_{b}"
                if a!=1: need.add((i,a))
                if b!=1: need.add((j,b))
                terms.append(f"{l}.mul({r})")
        body.append(f"        LongVector h{k} = " + terms[0] + "".join(f".add({t})" for t in terms[1:]) + ";")
    for (i,m) in sorted(need):
        if m==2: emit(f"        LongVector f{i}_2 = f{i}.add(f{i});")
        elif m==4: emit(f"        LongVector f{i}_4 = f{i}.lanewise(VectorOperators.LSHL, 2);")
        elif m==19: emit(f"        LongVector f{i}_19 = {m19('f'+str(i))};")
        else: emit(f"        LongVector f{i}_{m} = f{i}.mul({m}L);")
    for b in body: emit(b)
    carry_chain("h")
    if loop:
        for i in range(10): emit(f"        f{i} = h{i};")
        emit("        }")
        stores("f","h")
    else:
        stores("h","h")
    emit("    }")

def gen_addsub(name, op):
    emit(f"    static void {name}(long[] h, long[] f, long[] g) {{")
    for i in range(10):
        emit(f"        LongVector.fromArray(S, f, {i}*L).{op}(LongVector.fromArray(S, g, {i}*L)).intoArray(h, {i}*L);")
    emit("    }")

def gen_mulsmall():
    emit("    /** h = f*121666 + g  (carried). */")
    emit("    static void mul121666Add(long[] h, long[] f, long[] g) {")
    for i in range(10):
        emit(f"        LongVector h{i} = LongVector.fromArray(S, f, {i}*L).mul(121666L);")
    carry_chain("h")
    for i in range(10):
        emit(f"        h{i} = h{i}.add(LongVector.fromArray(S, g, {i}*L));")
    stores("h","h")
    emit("    }")

def gen_cswap():
    emit("    /** conditional swap of (a,b) and (c,d) where mask lanes are 0 or -1. */")
    emit("    static void cswap2(long[] masks, int moff, long[] a, long[] b, long[] c, long[] d) {")
    emit("        LongVector m = LongVector.fromArray(S, masks, moff);")
    for (x,y) in [("a","b"),("c","d")]:
        for i in range(10):
            emit(f"        {{ LongVector u = LongVector.fromArray(S, {x}, {i}*L), v = LongVector.fromArray(S, {y}, {i}*L);"
                 f" LongVector t = u.lanewise(VectorOperators.XOR, v).and(m);"
                 f" u.lanewise(VectorOperators.XOR, t).intoArray({x}, {i}*L); v.lanewise(VectorOperators.XOR, t).intoArray({y}, {i}*L); }}")
    emit("    }")

emit("// GENERATED by scripts/gen-fe25519.py -- do not edit by hand.")
emit("// Regenerate from the repository root with: python3 scripts/gen-fe25519.py")
emit("package dev.helmet.secagg.crypto;")
emit("")
emit("import jdk.incubator.vector.LongVector;")
emit("import jdk.incubator.vector.VectorOperators;")
emit("import jdk.incubator.vector.VectorSpecies;")
emit("")
emit("/**")
emit(" * Batched GF(2^255-19) arithmetic for {@link X25519Vector}: 10 signed limbs in radix 2^25.5, limb i")
emit(" * of lane l of a batch at index i*L + l of a long[N]. Straight-line code, no data-dependent branches")
emit(" * or memory accesses. Load this class only after checking that jdk.incubator.vector is present.")
emit(" */")
emit("final class Fe25519Vector {")
emit("    static final VectorSpecies<Long> S = LongVector.SPECIES_256;")
emit("    static final int L = S.length();")
emit("    static final int N = 10 * L;")
emit("")
emit("    private Fe25519Vector() {}")
emit("")
gen_mul(); gen_sq(); gen_sq("sqn", True); gen_addsub("add","add"); gen_addsub("sub","sub"); gen_mulsmall(); gen_cswap()
emit("}")
with open(OUT, "w") as fh:
    fh.write("\n".join(out) + "\n")
