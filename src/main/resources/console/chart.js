// The timeline chart, drawn on a canvas: stacked bars of messages due per interval, one colour per topic, the
// overdue messages (due, not yet acked) as a bar of their own on the left, "now" as a red line. Drag across the
// bars to zoom into that range. A table of the same numbers follows the chart for screen readers and tests.
const PALETTE = ['#2f6fdf', '#27ae60', '#8e44ad', '#f39c12', '#16a085', '#e84393', '#2c3e50', '#7f8c8d',
  '#c0392b', '#00a8ff', '#6ab04c', '#b33771', '#95a5a6'];
const OVERDUE_WIDTH = 56;
const PAD = { left: 56, right: 12, top: 14, bottom: 34 };

export function colourOf(topic, index) {
  return topic === '(other topics)' ? '#bdc3c7' : PALETTE[index % PALETTE.length];
}

export function formatTime(ms, stepMs) {
  const d = new Date(ms);
  const two = (n) => String(n).padStart(2, '0');
  const hms = two(d.getHours()) + ':' + two(d.getMinutes()) + (stepMs < 60000 ? ':' + two(d.getSeconds()) : '');
  if (stepMs >= 86400000) {
    return d.toLocaleDateString();
  }
  if (stepMs >= 900000) {
    return d.toLocaleDateString(undefined, { weekday: 'short' }) + ' ' + hms;
  }
  return hms;
}

export class TimelineChart {
  constructor(container, onZoom) {
    this.onZoom = onZoom;
    this.data = null;
    this.drag = null;
    container.innerHTML = '';
    const box = document.createElement('div');
    box.className = 'chart';
    this.canvas = document.createElement('canvas');
    this.canvas.id = 'timeline-canvas';
    this.readout = document.createElement('div');
    this.readout.className = 'chart-readout';
    this.readout.id = 'timeline-readout';
    box.append(this.canvas, this.readout);
    this.legend = document.createElement('div');
    this.legend.className = 'legend';
    this.legend.id = 'timeline-legend';
    this.table = document.createElement('table');
    this.table.id = 'timeline-table';
    this.table.className = 'visually-hidden';
    container.append(box, this.legend, this.table);
    this.canvas.addEventListener('mousedown', (e) => this.startDrag(e));
    this.canvas.addEventListener('mousemove', (e) => this.move(e));
    this.canvas.addEventListener('mouseup', (e) => this.endDrag(e));
    this.canvas.addEventListener('mouseleave', () => { this.drag = null; this.draw(); });
  }

  update(data) {
    this.data = data;
    this.draw();
    this.renderLegend();
    this.renderTable();
  }

  geometry() {
    const rect = this.canvas.getBoundingClientRect();
    const width = Math.max(300, rect.width);
    const height = Math.max(200, rect.height);
    const plotLeft = PAD.left + OVERDUE_WIDTH + 12;
    return { width, height, plotLeft, plotRight: width - PAD.right, top: PAD.top, bottom: height - PAD.bottom };
  }

  xOf(ms, g) {
    const d = this.data;
    const span = d.points * d.stepMs;
    return g.plotLeft + (ms - d.fromMs) / span * (g.plotRight - g.plotLeft);
  }

  msOf(x, g) {
    const d = this.data;
    const span = d.points * d.stepMs;
    return d.fromMs + (x - g.plotLeft) / (g.plotRight - g.plotLeft) * span;
  }

  draw() {
    if (!this.data) {
      return;
    }
    const g = this.geometry();
    const ratio = window.devicePixelRatio || 1;
    this.canvas.width = Math.round(g.width * ratio);
    this.canvas.height = Math.round(g.height * ratio);
    const c = this.canvas.getContext('2d');
    c.setTransform(ratio, 0, 0, ratio, 0, 0);
    c.clearRect(0, 0, g.width, g.height);
    const d = this.data;
    const totals = new Array(d.points).fill(0);
    d.series.forEach((s) => s.counts.forEach((n, i) => { totals[i] += n; }));
    const max = Math.max(1, d.overdue, ...totals);
    const yOf = (n) => g.bottom - n / max * (g.bottom - g.top);
    c.font = '11px system-ui, sans-serif';
    c.fillStyle = '#6b7385';
    c.strokeStyle = '#eef0f5';
    for (let i = 0; i <= 4; i++) {
      const v = Math.round(max * i / 4);
      const y = yOf(v);
      c.beginPath();
      c.moveTo(PAD.left, y);
      c.lineTo(g.plotRight, y);
      c.stroke();
      c.textAlign = 'right';
      c.fillText(String(v), PAD.left - 6, y + 4);
    }
    // overdue, apart
    c.fillStyle = '#d35400';
    c.fillRect(PAD.left + 8, yOf(d.overdue), OVERDUE_WIDTH - 16, g.bottom - yOf(d.overdue));
    c.fillStyle = '#6b7385';
    c.textAlign = 'center';
    c.fillText('overdue', PAD.left + OVERDUE_WIDTH / 2, g.bottom + 14);
    c.fillText(String(d.overdue), PAD.left + OVERDUE_WIDTH / 2, Math.max(g.top + 10, yOf(d.overdue) - 4));
    const barWidth = (g.plotRight - g.plotLeft) / d.points;
    const stacked = new Array(d.points).fill(0);
    d.series.forEach((s, si) => {
      c.fillStyle = colourOf(s.topic, si);
      s.counts.forEach((n, i) => {
        if (n > 0) {
          const x = g.plotLeft + i * barWidth;
          c.fillRect(x + (barWidth > 4 ? 1 : 0), yOf(stacked[i] + n), Math.max(1, barWidth - (barWidth > 4 ? 2 : 0)),
            yOf(stacked[i]) - yOf(stacked[i] + n));
          stacked[i] += n;
        }
      });
    });
    c.fillStyle = '#6b7385';
    const labels = Math.max(2, Math.min(10, Math.floor((g.plotRight - g.plotLeft) / 90)));
    const every = Math.max(1, Math.ceil(d.points / labels));
    for (let i = 0; i < d.points; i += every) {
      const x = g.plotLeft + i * barWidth;
      c.textAlign = 'left';
      c.fillText(formatTime(d.fromMs + i * d.stepMs, d.stepMs), x, g.bottom + 14);
    }
    const nowX = this.xOf(d.nowMs, g);
    if (nowX >= g.plotLeft && nowX <= g.plotRight) {
      c.strokeStyle = '#e74c3c';
      c.lineWidth = 2;
      c.beginPath();
      c.moveTo(nowX, g.top - 4);
      c.lineTo(nowX, g.bottom);
      c.stroke();
      c.fillStyle = '#e74c3c';
      c.textAlign = 'left';
      c.fillText('now', nowX + 3, g.top + 6);
      c.lineWidth = 1;
    }
    if (this.drag && this.drag.x1 !== undefined) {
      c.fillStyle = 'rgba(47, 111, 223, 0.15)';
      c.fillRect(Math.min(this.drag.x0, this.drag.x1), g.top, Math.abs(this.drag.x1 - this.drag.x0), g.bottom - g.top);
    }
  }

  renderLegend() {
    this.legend.innerHTML = '';
    this.data.series.forEach((s, i) => {
      const item = document.createElement('span');
      const swatch = document.createElement('span');
      swatch.className = 'swatch';
      swatch.style.background = colourOf(s.topic, i);
      item.append(swatch, document.createTextNode(s.topic + (s.topics ? ' (' + s.topics + ')' : '')));
      this.legend.append(item);
    });
  }

  renderTable() {
    const d = this.data;
    const rows = ['<tr><th>from</th><th>due</th></tr>'];
    for (let i = 0; i < d.points; i++) {
      const n = d.series.reduce((sum, s) => sum + s.counts[i], 0);
      if (n > 0) {
        rows.push('<tr data-ms="' + (d.fromMs + i * d.stepMs) + '" data-count="' + n + '"><td>'
          + new Date(d.fromMs + i * d.stepMs).toISOString() + '</td><td>' + n + '</td></tr>');
      }
    }
    rows.push('<tr id="timeline-overdue" data-count="' + d.overdue + '"><td>overdue</td><td>' + d.overdue
      + '</td></tr>');
    this.table.innerHTML = rows.join('');
    this.table.dataset.fromMs = d.fromMs;
    this.table.dataset.stepMs = d.stepMs;
    this.table.dataset.nowMs = d.nowMs;
  }

  startDrag(e) {
    const g = this.geometry();
    const x = e.offsetX;
    if (this.data && x >= g.plotLeft && x <= g.plotRight) {
      this.drag = { x0: x };
    }
  }

  move(e) {
    if (!this.data) {
      return;
    }
    const g = this.geometry();
    if (this.drag) {
      this.drag.x1 = Math.min(g.plotRight, Math.max(g.plotLeft, e.offsetX));
      this.draw();
      return;
    }
    const d = this.data;
    const i = Math.floor((e.offsetX - g.plotLeft) / ((g.plotRight - g.plotLeft) / d.points));
    if (i >= 0 && i < d.points) {
      const parts = d.series.filter((s) => s.counts[i] > 0).map((s) => s.topic + ' ' + s.counts[i]);
      this.readout.textContent = formatTime(d.fromMs + i * d.stepMs, d.stepMs) + ': '
        + (parts.length ? parts.join(', ') : 'nothing due');
    }
  }

  endDrag(e) {
    const drag = this.drag;
    this.drag = null;
    if (!drag || drag.x1 === undefined || Math.abs(drag.x1 - drag.x0) < 6) {
      this.draw();
      return;
    }
    const g = this.geometry();
    const from = this.msOf(Math.min(drag.x0, drag.x1), g);
    const to = this.msOf(Math.max(drag.x0, drag.x1), g);
    this.onZoom(Math.floor(from), Math.ceil(to));
  }
}
