// symnb browser-drawn views (one anywidget ES module, no build step).
//
// Playground: Python sends float32 buffers (maps, weights, losses) and small lists;
// this module draws the network with weight lines, every neuron's map, the output map
// with the points, a colour legend and the loss curves, on <canvas>/<svg> in
// requestAnimationFrame, and sends back what the user did (weights, neurons, layers,
// activations) and which frames it drew.
//
// Curves (the activation editor): f, f' and comparison curves sampled by Python,
// drawn with a hover readout; an error keeps the last good curves on screen and shows
// the message under them.

const ORANGE = [245, 147, 34];
const NEUTRAL = [232, 234, 235];
const BLUE = [8, 119, 189];
const SVGNS = "http://www.w3.org/2000/svg";

function floats(model, name) {
  const v = model.get(name);
  if (!v) return new Float32Array(0);
  if (v instanceof ArrayBuffer) return new Float32Array(v.slice(0));
  if (!v.byteLength) return new Float32Array(0);
  return new Float32Array(v.buffer.slice(v.byteOffset, v.byteOffset + v.byteLength));
}

function colour(v) {
  if (!Number.isFinite(v)) return [160, 160, 160];
  const t = Math.min(1, Math.abs(v));
  const c = v < 0 ? ORANGE : BLUE;
  return [0, 1, 2].map((k) => NEUTRAL[k] + (c[k] - NEUTRAL[k]) * t);
}

// colour(v) for v in [-1, 1] in LEVELS steps, as RGB bytes (no allocation per pixel)
const LEVELS = 512;
const LUT = new Uint8ClampedArray(3 * (LEVELS + 1));
for (let i = 0; i <= LEVELS; i++) LUT.set(colour((2 * i) / LEVELS - 1), 3 * i);

function css(rgb) {
  return `rgb(${rgb[0] | 0},${rgb[1] | 0},${rgb[2] | 0})`;
}

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}

// Paint an n x n map (row 0 at the bottom) scaled onto a canvas.
function paintMap(canvas, values, offset, n, opts) {
  const ctx = canvas.getContext("2d");
  const w = canvas.width, h = canvas.height;
  if (!n || values.length < offset + n * n) {
    ctx.fillStyle = "#f3f3f3";
    ctx.fillRect(0, 0, w, h);
    return;
  }
  let scale = 1;
  if (opts.normalise) {
    let m = 0;
    for (let i = 0; i < n * n; i++) {
      const a = Math.abs(values[offset + i]);
      if (Number.isFinite(a) && a > m) m = a;
    }
    scale = m > 1e-12 ? m : 1;
  }
  // one offscreen canvas and one ImageData per map size, reused every frame
  const cache = paintMap.cache || (paintMap.cache = {});
  if (!cache[n]) {
    const off = document.createElement("canvas");
    off.width = off.height = n;
    cache[n] = { off, img: off.getContext("2d").createImageData(n, n) };
  }
  const { off, img } = cache[n];
  const data = img.data;
  const inv = 1 / scale;
  for (let iy = 0; iy < n; iy++) {
    let p = (n - 1 - iy) * n * 4;
    let q = offset + iy * n;
    for (let ix = 0; ix < n; ix++, p += 4, q++) {
      let v = values[q] * inv;
      if (opts.discretize) v = v > 0 ? 1 : v < 0 ? -1 : 0;
      let k;
      if (v !== v) {
        data[p] = data[p + 1] = data[p + 2] = 160; // NaN: grey
      } else {
        k = 3 * Math.round(((v < -1 ? -1 : v > 1 ? 1 : v) + 1) * 0.5 * LEVELS);
        data[p] = LUT[k];
        data[p + 1] = LUT[k + 1];
        data[p + 2] = LUT[k + 2];
      }
      data[p + 3] = 255;
    }
  }
  off.getContext("2d").putImageData(img, 0, 0);
  ctx.imageSmoothingEnabled = true;
  ctx.imageSmoothingQuality = "high";
  ctx.clearRect(0, 0, w, h);
  ctx.drawImage(off, 0, 0, w, h);
}

function drawPoints(canvas, pts, extent, outline) {
  const ctx = canvas.getContext("2d");
  const [x0, x1, y0, y1] = extent;
  const w = canvas.width, h = canvas.height;
  const r = Math.max(2.5, w / 110);
  ctx.lineWidth = 1;
  ctx.strokeStyle = outline;
  for (let i = 0; i + 2 < pts.length; i += 3) {
    const px = ((pts[i] - x0) / (x1 - x0)) * w;
    const py = (1 - (pts[i + 1] - y0) / (y1 - y0)) * h;
    ctx.beginPath();
    ctx.arc(px, py, r, 0, 2 * Math.PI);
    ctx.fillStyle = css(colour(pts[i + 2]));
    ctx.fill();
    ctx.stroke();
  }
}

function drawLoss(canvas, train, test, epochs, font) {
  const ctx = canvas.getContext("2d");
  const w = canvas.width, h = canvas.height;
  ctx.clearRect(0, 0, w, h);
  ctx.fillStyle = "#fff";
  ctx.fillRect(0, 0, w, h);
  const left = font * 2.6, bottom = font * 1.6, top = font * 0.6, right = 6;
  let hi = 0;
  for (const a of [train, test]) for (const v of a) if (Number.isFinite(v)) hi = Math.max(hi, v);
  hi = hi > 0 ? hi * 1.05 : 1;
  ctx.strokeStyle = "#bbb";
  ctx.beginPath();
  ctx.moveTo(left, top);
  ctx.lineTo(left, h - bottom);
  ctx.lineTo(w - right, h - bottom);
  ctx.stroke();
  ctx.fillStyle = "#444";
  ctx.font = `${font}px sans-serif`;
  ctx.textAlign = "right";
  ctx.fillText(hi.toPrecision(2), left - 3, top + font * 0.8);
  ctx.fillText("0", left - 3, h - bottom);
  ctx.textAlign = "center";
  ctx.fillText(`epoch ${epochs}`, (left + w) / 2, h - 3);
  const series = [[test, "#999"], [train, "#222"]];
  for (const [a, stroke] of series) {
    if (a.length < 1) continue;
    ctx.strokeStyle = stroke;
    ctx.lineWidth = Math.max(1.5, font / 7);
    ctx.beginPath();
    for (let i = 0; i < a.length; i++) {
      const x = left + ((i + 1) / a.length) * (w - right - left);
      const v = Number.isFinite(a[i]) ? a[i] : hi;
      const y = h - bottom - (v / hi) * (h - bottom - top);
      if (i === 0) ctx.moveTo(x, y);
      else ctx.lineTo(x, y);
    }
    ctx.stroke();
  }
}

function drawLegend(canvas, font) {
  const ctx = canvas.getContext("2d");
  const w = canvas.width, h = canvas.height;
  ctx.clearRect(0, 0, w, h);
  const barH = Math.max(8, h - font - 6);
  for (let x = 0; x < w; x++) {
    ctx.fillStyle = css(colour((x / (w - 1)) * 2 - 1));
    ctx.fillRect(x, 0, 1, barH);
  }
  ctx.fillStyle = "#333";
  ctx.font = `${font}px sans-serif`;
  ctx.textAlign = "left";
  ctx.fillText("-1", 0, h - 2);
  ctx.textAlign = "center";
  ctx.fillText("0", w / 2, h - 2);
  ctx.textAlign = "right";
  ctx.fillText("1", w, h - 2);
}

function sizes(p) {
  // map sizes in CSS pixels for the normal and the projector layout
  return p
    ? { node: 40, out: 290, loss: [290, 90], font: 16, hover: 260, legend: [290, 34] }
    : { node: 36, out: 240, loss: [240, 80], font: 11, hover: 200, legend: [240, 26] };
}

function renderPlayground({ model, el: root }) {
  const view = el("div", "symnb-pgv");
  root.appendChild(view);
  const st = { hidden: [], lacts: [], nacts: [], seq: 0 };
  const session = Math.random().toString(36).slice(2); // this view's messages
  let parts = null; // DOM handles of the current structure
  let scheduled = false;
  let drawn = 0;

  function fromModel() {
    st.hidden = model.get("hidden").slice();
    st.lacts = model.get("layer_activations").slice();
    st.nacts = model.get("neuron_activations").map((r) => r.slice());
  }

  function send(msg) {
    st.seq += 1;
    msg.seq = st.seq;
    msg.session = session;
    model.send(msg);
  }

  function pending() {
    return model.get("ack") < st.seq;
  }

  function options(select, names, current, withLayer) {
    select.textContent = "";
    if (withLayer) {
      const o = el("option", "", "= layer");
      o.value = "";
      select.appendChild(o);
    }
    for (const n of names) {
      const o = el("option", "", n);
      o.value = n;
      select.appendChild(o);
    }
    select.value = current;
  }

  // ---------------------------------------------------------------- structure
  function build() {
    const pres = model.get("presentation");
    const sz = sizes(pres);
    view.className = "symnb-pgv" + (pres ? " symnb-presentation" : "");
    view.style.setProperty("--symnb-node", `${sz.node}px`);
    view.style.setProperty("--symnb-font", `${sz.font}px`);
    view.textContent = "";
    const names = model.get("activation_options");
    const feats = model.get("features");
    const net = el("div", "symnb-pgv-net");
    const head = el("div", "symnb-pgv-nethead");
    const addLayer = el("button", "symnb-add-layer", "+");
    const removeLayer = el("button", "symnb-remove-layer", "\u2212");
    addLayer.title = "add a hidden layer";
    removeLayer.title = "remove the last hidden layer";
    addLayer.disabled = st.hidden.length >= model.get("max_layers");
    removeLayer.disabled = st.hidden.length === 0;
    const nl = st.hidden.length;
    const label = el("span", "symnb-layers", `${nl} HIDDEN LAYER${nl === 1 ? "" : "S"}`);
    const backend = el("span", "symnb-pgv-backend", model.get("backend_text"));
    head.append(addLayer, removeLayer, label, backend);
    addLayer.onclick = () => {
      if (st.hidden.length >= model.get("max_layers")) return;
      st.hidden.push(2);
      st.lacts.push(st.lacts.length ? st.lacts[st.lacts.length - 1] : "tanh");
      st.nacts.push(["", ""]);
      send({ kind: "layers", delta: 1 });
      build();
    };
    removeLayer.onclick = () => {
      if (!st.hidden.length) return;
      st.hidden.pop();
      st.lacts.pop();
      st.nacts.pop();
      send({ kind: "layers", delta: -1 });
      build();
    };
    const cols = el("div", "symnb-pgv-columns");
    const svg = document.createElementNS(SVGNS, "svg");
    svg.setAttribute("class", "symnb-links");
    cols.appendChild(svg);
    const nodes = []; // nodes[layer][i] -> canvas (layer 0: inputs, last: output)

    const inCol = el("div", "symnb-pgv-col symnb-pgv-inputs");
    inCol.appendChild(el("div", "symnb-pgv-colhead", "FEATURES"));
    const inputs = [];
    feats.forEach((name) => {
      const tile = el("div", "symnb-node symnb-input-tile");
      const c = el("canvas", "symnb-input-map");
      c.width = c.height = sz.node;
      tile.append(el("span", "symnb-input-label", name), c);
      inCol.appendChild(tile);
      inputs.push(c);
    });
    nodes.push(inputs);
    cols.appendChild(inCol);

    st.hidden.forEach((width, l) => {
      const col = el("div", "symnb-pgv-col symnb-layer");
      col.dataset.layer = l;
      const hd = el("div", "symnb-pgv-colhead");
      const plus = el("button", "symnb-add-neuron", "+");
      const minus = el("button", "symnb-remove-neuron", "\u2212");
      plus.title = "add a neuron";
      minus.title = "remove a neuron";
      plus.disabled = width >= model.get("max_neurons");
      minus.disabled = width <= 1;
      plus.onclick = () => {
        if (st.hidden[l] >= model.get("max_neurons")) return;
        st.hidden[l] += 1;
        st.nacts[l].push("");
        send({ kind: "neurons", layer: l, delta: 1 });
        build();
      };
      minus.onclick = () => {
        if (st.hidden[l] <= 1) return;
        st.hidden[l] -= 1;
        st.nacts[l].pop();
        send({ kind: "neurons", layer: l, delta: -1 });
        build();
      };
      const count = el("div", "symnb-layer-count", `${width} neuron${width === 1 ? "" : "s"}`);
      const sel = el("select", "symnb-layer-activation");
      options(sel, names, st.lacts[l], false);
      sel.onchange = () => {
        st.lacts[l] = sel.value;
        st.nacts[l] = st.nacts[l].map(() => "");
        send({ kind: "activation", layer: l, neuron: -1, name: sel.value });
        build();
      };
      const btns = el("div", "symnb-pgv-btns");
      btns.append(plus, minus);
      hd.append(btns, count, sel);
      col.appendChild(hd);
      const layerNodes = [];
      for (let j = 0; j < width; j++) {
        const tile = el("div", "symnb-node symnb-neuron-tile");
        const c = el("canvas", "symnb-neuron");
        c.width = c.height = sz.node;
        c.dataset.layer = l;
        c.dataset.index = j;
        tile.appendChild(c);
        const own = st.nacts[l][j];
        if (own) {
          tile.appendChild(el("span", "symnb-neuron-act", own));
          tile.classList.add("symnb-own-activation");
        }
        c.onmouseenter = () => showHover(l, j, c);
        c.onmouseleave = hideHover;
        c.onclick = (ev) => showNeuronMenu(l, j, tile, ev);
        col.appendChild(tile);
        layerNodes.push(c);
      }
      nodes.push(layerNodes);
      cols.appendChild(col);
    });
    const outCol = el("div", "symnb-pgv-col symnb-pgv-outnode");
    outCol.appendChild(el("div", "symnb-pgv-colhead", "OUTPUT"));
    const outTile = el("div", "symnb-node");
    const outNode = el("canvas", "symnb-output-node");
    outNode.width = outNode.height = sz.node;
    outTile.appendChild(outNode);
    outCol.appendChild(outTile);
    nodes.push([outNode]);
    cols.appendChild(outCol);
    net.append(head, cols);

    const out = el("div", "symnb-pgv-out");
    const lossText = el("div", "symnb-pgv-losstext");
    const lossCanvas = el("canvas", "symnb-loss-plot");
    [lossCanvas.width, lossCanvas.height] = sz.loss;
    const boundary = el("canvas", "symnb-boundary");
    boundary.width = boundary.height = sz.out;
    const legend = el("canvas", "symnb-legend");
    [legend.width, legend.height] = sz.legend;
    drawLegend(legend, sz.font);
    out.append(lossText, lossCanvas, boundary, legend);

    const hover = el("canvas", "symnb-hover-map");
    hover.width = hover.height = sz.hover;
    hover.style.display = "none";
    const editor = el("div", "symnb-weight-editor");
    editor.style.display = "none";
    const menu = el("div", "symnb-neuron-menu");
    menu.style.display = "none";
    view.append(net, out, hover, editor, menu);
    parts = { svg, cols, nodes, lossText, lossCanvas, boundary, hover, editor, menu, backend, sz, paths: [] };
    parts.hoverAt = null;
    requestAnimationFrame(() => {
      layoutLinks();
      draw();
    });
  }

  // ---------------------------------------------------------------- weight lines
  function layoutLinks() {
    if (!parts) return;
    const { svg, cols, nodes } = parts;
    svg.textContent = "";
    parts.paths = [];
    const base = cols.getBoundingClientRect();
    svg.setAttribute("width", cols.scrollWidth);
    svg.setAttribute("height", cols.scrollHeight);
    const centre = (c, side) => {
      const r = c.getBoundingClientRect();
      return [side > 0 ? r.right - base.left : r.left - base.left, r.top - base.top + r.height / 2];
    };
    for (let l = 0; l + 1 < nodes.length; l++) {
      for (let i = 0; i < nodes[l].length; i++) {
        const [x1, y1] = centre(nodes[l][i], 1);
        for (let j = 0; j < nodes[l + 1].length; j++) {
          const [x2, y2] = centre(nodes[l + 1][j], -1);
          const mx = (x1 + x2) / 2;
          const d = `M${x1},${y1} C${mx},${y1} ${mx},${y2} ${x2},${y2}`;
          const line = document.createElementNS(SVGNS, "path");
          line.setAttribute("d", d);
          line.setAttribute("class", "symnb-weight");
          const hit = document.createElementNS(SVGNS, "path");
          hit.setAttribute("d", d);
          hit.setAttribute("class", "symnb-weight-hit");
          hit.dataset.layer = l;
          hit.dataset.source = i;
          hit.dataset.target = j;
          hit.onclick = (ev) => editWeight(l, i, j, ev);
          svg.append(line, hit);
          parts.paths.push({ line, hit, l, i, j });
        }
      }
    }
  }

  function weightMatrices() {
    const w = floats(model, "weights");
    const dims = [parts.nodes[0].length, ...st.hidden, 1];
    let need = 0;
    for (let k = 0; k + 1 < dims.length; k++) need += dims[k] * dims[k + 1];
    if (w.length !== need) return null; // a change is on its way
    const mats = [];
    let o = 0;
    for (let k = 0; k + 1 < dims.length; k++) {
      mats.push({ data: w, offset: o, cols: dims[k + 1] });
      o += dims[k] * dims[k + 1];
    }
    return mats;
  }

  function weightAt(mats, l, i, j) {
    const m = mats[l];
    return m.data[m.offset + i * m.cols + j];
  }

  function styleLinks() {
    const mats = weightMatrices();
    for (const p of parts.paths) {
      if (!mats) {
        p.line.setAttribute("stroke", "#ccc");
        p.line.setAttribute("stroke-width", "1");
        continue;
      }
      const v = weightAt(mats, p.l, p.i, p.j);
      p.line.setAttribute("stroke", css(v < 0 ? ORANGE : BLUE));
      p.line.setAttribute("stroke-width", Math.min(10, 0.5 + Math.abs(v) * 2.5).toFixed(2));
      p.hit.dataset.value = v;
      p.hit.setAttribute("data-weight", v.toPrecision(3));
    }
  }

  function editWeight(l, i, j, ev) {
    const mats = weightMatrices();
    const current = mats ? weightAt(mats, l, i, j) : 0;
    const box = parts.editor;
    box.textContent = "";
    const input = el("input", "symnb-weight-input");
    input.type = "number";
    input.step = "0.1";
    input.value = current.toPrecision(3);
    box.append(el("span", "", "weight "), input);
    const r = view.getBoundingClientRect();
    box.style.left = `${ev.clientX - r.left + 6}px`;
    box.style.top = `${ev.clientY - r.top + 6}px`;
    box.style.display = "block";
    input.focus();
    input.select();
    input.onkeydown = (e) => {
      if (e.key === "Enter") {
        const value = parseFloat(input.value);
        if (Number.isFinite(value)) {
          model.send({ kind: "weight", layer: l, source: i, target: j, value });
        }
        box.style.display = "none";
      } else if (e.key === "Escape") {
        box.style.display = "none";
      }
      e.stopPropagation();
    };
    input.onblur = () => {
      box.style.display = "none";
    };
  }

  function showNeuronMenu(l, j, tile, ev) {
    hideHover();
    const menu = parts.menu;
    menu.textContent = "";
    const sel = el("select", "symnb-neuron-activation");
    options(sel, model.get("activation_options"), st.nacts[l][j] || "", true);
    const close = el("button", "symnb-menu-close", "\u00d7");
    menu.append(el("span", "", `neuron ${j + 1}: `), sel, close);
    const r = view.getBoundingClientRect();
    const t = tile.getBoundingClientRect();
    menu.style.left = `${t.right - r.left + 4}px`;
    menu.style.top = `${t.top - r.top}px`;
    menu.style.display = "block";
    close.onclick = () => (menu.style.display = "none");
    sel.onchange = () => {
      st.nacts[l][j] = sel.value === st.lacts[l] ? "" : sel.value;
      send({ kind: "activation", layer: l, neuron: j, name: sel.value });
      menu.style.display = "none";
      build();
    };
    ev.stopPropagation();
  }

  // ---------------------------------------------------------------- hover
  function showHover(l, j, canvas) {
    const h = parts.hover;
    const r = view.getBoundingClientRect();
    const c = canvas.getBoundingClientRect();
    let left = c.right - r.left + 8;
    if (left + h.width > r.width) left = Math.max(0, c.left - r.left - h.width - 8);
    h.style.left = `${left}px`;
    h.style.top = `${Math.max(0, c.top - r.top - h.height / 3)}px`;
    h.style.display = "block";
    parts.hoverAt = [l, j];
    paintHover();
  }

  function hideHover() {
    if (!parts) return;
    parts.hover.style.display = "none";
    parts.hoverAt = null;
  }

  function neuronOffset(l, j) {
    const n = model.get("neuron_grid");
    let k = 0;
    for (let a = 0; a < l; a++) k += st.hidden[a];
    return (k + j) * n * n;
  }

  function paintHover() {
    if (!parts.hoverAt) return;
    const [l, j] = parts.hoverAt;
    const n = model.get("neuron_grid");
    paintMap(parts.hover, floats(model, "neuron_maps"), neuronOffset(l, j), n, {
      normalise: true,
      discretize: false,
    });
  }

  // ---------------------------------------------------------------- frames
  let drawMs = 0; // a running mean of the time one draw takes

  function draw() {
    scheduled = false;
    if (!parts) return;
    const started = performance.now();
    const n = model.get("grid");
    const ng = model.get("neuron_grid");
    const disc = model.get("discretize");
    const out = floats(model, "output_map");
    const neurons = floats(model, "neuron_maps");
    const ins = floats(model, "input_maps");
    parts.nodes[0].forEach((c, i) =>
      paintMap(c, ins, i * ng * ng, ng, { normalise: true, discretize: false }),
    );
    let k = 0;
    st.hidden.forEach((width, l) => {
      for (let j = 0; j < width; j++, k++) {
        const c = parts.nodes[l + 1] && parts.nodes[l + 1][j];
        if (c) paintMap(c, neurons, k * ng * ng, ng, { normalise: true, discretize: false });
      }
    });
    const outNode = parts.nodes[parts.nodes.length - 1][0];
    paintMap(parts.boundary, out, 0, n, { normalise: false, discretize: disc });
    const small = outNode.getContext("2d");
    small.imageSmoothingEnabled = true;
    small.drawImage(parts.boundary, 0, 0, outNode.width, outNode.height);
    const extent = model.get("extent");
    drawPoints(parts.boundary, floats(model, "train_points"), extent, "#fff");
    if (model.get("show_test")) {
      drawPoints(parts.boundary, floats(model, "test_points"), extent, "#000");
    }
    const train = floats(model, "loss_train");
    const test = floats(model, "loss_test");
    drawLoss(parts.lossCanvas, train, test, model.get("epoch"), parts.sz.font);
    const fmt = (a) => (a.length ? a[a.length - 1].toFixed(3) : "\u2013");
    parts.lossText.textContent = "";
    parts.lossText.append(
      el("div", "symnb-pgv-epoch", `Epoch ${model.get("epoch")}`),
      el("div", "", `Test loss ${fmt(test)}`),
      el("div", "", `Training loss ${fmt(train)}`),
    );
    parts.backend.textContent = model.get("backend_text");
    styleLinks();
    paintHover();
    drawn += 1;
    drawMs = drawMs ? 0.9 * drawMs + 0.1 * (performance.now() - started) : performance.now() - started;
    view.dataset.drawMs = drawMs.toFixed(2);
    view.dataset.framesDrawn = drawn;
    view.dataset.epoch = model.get("epoch");
    view.dataset.frame = model.get("frame");
    unacked += 1;
    acknowledge();
  }

  // "drawn" goes to the kernel at most every ACK_MS (each message costs the kernel a
  // busy/idle round), the newest frame always (a trailing timer).
  const ACK_MS = 80;
  let unacked = 0, lastAck = 0, ackTimer = null;
  function acknowledge() {
    const wait = lastAck + ACK_MS - performance.now();
    if (wait > 0) {
      if (!ackTimer) ackTimer = setTimeout(() => { ackTimer = null; acknowledge(); }, wait);
      return;
    }
    if (!unacked) return;
    lastAck = performance.now();
    model.send({ kind: "drawn", frame: model.get("frame"), draws: unacked });
    unacked = 0;
  }

  function schedule() {
    if (scheduled) return;
    scheduled = true;
    requestAnimationFrame(draw);
  }

  function structureChanged() {
    view.dataset.ack = model.get("ack");
    if (pending()) return; // our own change is on its way: keep what the user sees
    fromModel();
    build();
  }

  fromModel();
  build();
  const structural = ["hidden", "layer_activations", "neuron_activations", "features", "activation_options", "presentation", "ack"];
  for (const name of structural) model.on(`change:${name}`, structureChanged);
  for (const name of ["frame", "train_points", "test_points", "input_maps", "show_test", "discretize"]) {
    model.on(`change:${name}`, schedule);
  }
  const onResize = () => requestAnimationFrame(() => {
    layoutLinks();
    styleLinks();
  });
  const observer = typeof ResizeObserver !== "undefined" ? new ResizeObserver(onResize) : null;
  if (observer) observer.observe(view);
  return () => {
    if (observer) observer.disconnect();
    for (const name of structural) model.off(`change:${name}`, structureChanged);
    for (const name of ["frame", "train_points", "test_points", "input_maps", "show_test", "discretize"]) {
      model.off(`change:${name}`, schedule);
    }
  };
}


function percentile(sorted, q) {
  if (!sorted.length) return 0;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.round(q * (sorted.length - 1))));
  return sorted[i];
}

function renderCurves({ model, el: root }) {
  const box = document.createElement("div");
  box.className = "symnb-curves";
  const canvas = document.createElement("canvas");
  canvas.className = "symnb-curves-canvas";
  const readout = document.createElement("div");
  readout.className = "symnb-curves-readout";
  const error = document.createElement("div");
  error.className = "symnb-curves-error";
  const sliders = document.createElement("div");
  sliders.className = "symnb-curves-sliders";
  box.append(sliders, canvas, readout, error);
  const inputs = {}; // name -> [range input, readout]
  let lastInput = 0;
  // messages may arrive out of order: the kernel keeps the newest of this view's
  const session = Math.random().toString(36).slice(2);
  let sendSeq = 0;
  // at most one value every SEND_MS per constant (the newest, a trailing timer):
  // every message costs the kernel a busy/idle round
  const SEND_MS = 20;
  const pendingValues = {};
  let lastSend = 0, sendTimer = null;
  function sendValues() {
    const wait = lastSend + SEND_MS - performance.now();
    if (wait > 0) {
      if (!sendTimer) sendTimer = setTimeout(() => { sendTimer = null; sendValues(); }, wait);
      return;
    }
    lastSend = performance.now();
    for (const name of Object.keys(pendingValues)) {
      sendSeq += 1;
      model.send({ kind: "constant", name, value: pendingValues[name], session, seq: sendSeq });
      delete pendingValues[name];
    }
  }

  // The constants' sliders: values go to the kernel as custom messages, without
  // waiting for the previous one (a drag is not limited by the kernel's round trip).
  function syncSliders() {
    const specs = model.get("constants");
    const names = specs.map((c) => c.name).join(",");
    if (names !== Object.keys(inputs).join(",")) {
      sliders.textContent = "";
      for (const key of Object.keys(inputs)) delete inputs[key];
      for (const c of specs) {
        const row = document.createElement("label");
        row.className = "symnb-curves-slider";
        const name = document.createElement("span");
        name.textContent = c.name;
        const range = document.createElement("input");
        range.type = "range";
        range.className = "symnb-constant-range";
        range.dataset.name = c.name;
        const value = document.createElement("span");
        value.className = "symnb-constant-readout";
        range.addEventListener("input", () => {
          lastInput = performance.now();
          value.textContent = (+range.value).toFixed(3);
          pendingValues[c.name] = +range.value;
          sendValues();
        });
        row.append(name, range, value);
        sliders.appendChild(row);
        inputs[c.name] = [range, value];
      }
    }
    const busy = performance.now() - lastInput < 400; // the user is dragging
    for (const c of specs) {
      const [range, value] = inputs[c.name];
      range.min = c.min;
      range.max = c.max;
      range.step = c.step || 0.01;
      if (!busy) {
        range.value = c.value;
        value.textContent = (+c.value).toFixed(3);
      }
    }
  }
  root.appendChild(box);
  let scheduled = false;
  let drawn = 0;
  let frame = null; // what the last draw used (for the readout)

  function size() {
    const p = model.get("presentation");
    box.classList.toggle("symnb-presentation", p);
    return p ? [820, 460, 18] : [480, 300, 12];
  }

  function draw() {
    scheduled = false;
    const started = performance.now();
    const [w, h, font] = size();
    if (canvas.width !== w) canvas.width = w;
    if (canvas.height !== h) canvas.height = h;
    const err = model.get("error");
    error.textContent = err;
    error.style.display = err ? "block" : "none";
    const xs = floats(model, "xs");
    const ys = floats(model, "ys");
    const names = model.get("names");
    const n = xs.length;
    const ctx = canvas.getContext("2d");
    ctx.fillStyle = "#fff";
    ctx.fillRect(0, 0, w, h);
    if (!n || ys.length < n * names.length) {
      frame = null;
      return;
    }
    const finite = [];
    for (const v of ys) if (Number.isFinite(v)) finite.push(v);
    finite.sort((a, b) => a - b);
    let lo = Math.min(percentile(finite, 0.01), -0.1);
    let hi = Math.max(percentile(finite, 0.99), 1.1);
    const pad = 0.08 * (hi - lo);
    lo -= pad;
    hi += pad;
    const left = font * 3.2, right = 10, top = font * 1.8, bottom = font * 2.2;
    const x0 = xs[0], x1 = xs[n - 1];
    const px = (x) => left + ((x - x0) / (x1 - x0)) * (w - left - right);
    const py = (y) => top + (1 - (y - lo) / (hi - lo)) * (h - top - bottom);
    // grid and axes
    ctx.strokeStyle = "#eee";
    ctx.lineWidth = 1;
    ctx.font = `${font}px sans-serif`;
    ctx.fillStyle = "#555";
    const ticks = (a, b) => {
      const span = b - a;
      const step = Math.pow(10, Math.floor(Math.log10(span / 5)));
      const nice = [1, 2, 5, 10].map((m) => m * step).find((s) => span / s <= 8) || step * 10;
      const out = [];
      for (let t = Math.ceil(a / nice) * nice; t <= b + 1e-9; t += nice) out.push(+t.toFixed(10));
      return out;
    };
    ctx.textAlign = "center";
    for (const t of ticks(x0, x1)) {
      ctx.beginPath();
      ctx.moveTo(px(t), top);
      ctx.lineTo(px(t), h - bottom);
      ctx.stroke();
      ctx.fillText(String(t), px(t), h - bottom + font * 1.2);
    }
    ctx.textAlign = "right";
    for (const t of ticks(lo, hi)) {
      ctx.beginPath();
      ctx.moveTo(left, py(t));
      ctx.lineTo(w - right, py(t));
      ctx.stroke();
      ctx.fillText(String(t), left - 4, py(t) + font * 0.35);
    }
    ctx.strokeStyle = "#999";
    ctx.beginPath();
    if (lo < 0 && hi > 0) {
      ctx.moveTo(left, py(0));
      ctx.lineTo(w - right, py(0));
    }
    if (x0 < 0 && x1 > 0) {
      ctx.moveTo(px(0), top);
      ctx.lineTo(px(0), h - bottom);
    }
    ctx.stroke();
    // curves
    const colours = model.get("colours");
    const dashed = model.get("dashed");
    names.forEach((name, k) => {
      ctx.strokeStyle = colours[k] || "#333";
      ctx.lineWidth = k < 2 ? Math.max(2, font / 5) : Math.max(1.2, font / 8);
      ctx.setLineDash(dashed[k] ? [6, 4] : []);
      ctx.beginPath();
      let pen = false;
      for (let i = 0; i < n; i++) {
        const y = ys[k * n + i];
        if (!Number.isFinite(y)) {
          pen = false;
          continue;
        }
        const cy = Math.max(-h, Math.min(2 * h, py(y)));
        if (pen) ctx.lineTo(px(xs[i]), cy);
        else ctx.moveTo(px(xs[i]), cy);
        pen = true;
      }
      ctx.stroke();
    });
    ctx.setLineDash([]);
    // legend and title
    ctx.textAlign = "left";
    names.forEach((name, k) => {
      ctx.fillStyle = colours[k] || "#333";
      ctx.fillText(name, left + 8 + k * font * 6, top - font * 0.5);
    });
    ctx.fillStyle = "#333";
    ctx.textAlign = "right";
    ctx.fillText(model.get("title"), w - right, top - font * 0.5);
    frame = { xs, ys, names, n, px, left, right, w };
    drawn += 1;
    box.dataset.drawMs = (performance.now() - started).toFixed(2);
    box.dataset.framesDrawn = drawn;
    box.dataset.frame = model.get("frame");
  }

  function schedule() {
    if (scheduled) return;
    scheduled = true;
    requestAnimationFrame(draw);
  }

  canvas.addEventListener("mousemove", (ev) => {
    if (!frame) return;
    const r = canvas.getBoundingClientRect();
    const x = ((ev.clientX - r.left) / r.width) * frame.w;
    const t = (x - frame.left) / (frame.w - frame.left - frame.right);
    const i = Math.max(0, Math.min(frame.n - 1, Math.round(t * (frame.n - 1))));
    const parts = [`x = ${frame.xs[i].toFixed(3)}`];
    frame.names.forEach((name, k) => {
      const v = frame.ys[k * frame.n + i];
      parts.push(`${name} = ${Number.isFinite(v) ? v.toPrecision(4) : "NaN"}`);
    });
    readout.textContent = parts.join("   ");
  });
  canvas.addEventListener("mouseleave", () => (readout.textContent = ""));
  const names = ["frame", "error", "presentation"];
  for (const name of names) model.on(`change:${name}`, schedule);
  model.on("change:constants", syncSliders);
  syncSliders();
  draw();
  return () => {
    for (const name of names) model.off(`change:${name}`, schedule);
    model.off("change:constants", syncSliders);
  };
}


function render(ctx) {
  return ctx.model.get("view") === "curves" ? renderCurves(ctx) : renderPlayground(ctx);
}

export default { render };
