// The Overview page: nodes, Raft leader, totals, version and the settings that matter.
import { get } from './api.js';
import { card, el, num, table } from './ui.js';

export async function showOverview(main) {
  const o = await get('overview');
  const t = o.totals;
  main.append(el('h1', {}, 'Overview'),
    el('div', { className: 'cards' },
      card('Pending messages', num(t.pending), 'total-pending'),
      card('Due in the next minute', num(t.dueNextMinute), 'total-next-minute'),
      card('Overdue (due, not yet acked)', num(t.overdue), 'total-overdue'),
      card('Topics', num(t.topics), 'total-topics'),
      card('Mode', o.mode + (o.raft ? ' · Raft leader ' + (o.raft.leaderId || 'none') : ''), 'mode'),
      card('Version', o.version, 'version')),
    el('h2', {}, 'Nodes'),
    table('nodes', ['Node', 'Role', 'Status', 'Reachable', 'Address', 'gRPC', 'Topics hosted'],
      o.members.map((m) => el('tr', {},
        el('td', {}, m.nodeId + (m.self ? ' (this node)' : '')),
        el('td', {}, o.raft && o.raft.leaderId === m.nodeId ? 'Raft leader' : o.raft ? 'follower' : 'standalone'),
        el('td', {}, m.status), el('td', {}, m.reachable ? 'yes' : 'no'), el('td', {}, m.address),
        el('td', {}, m.grpcAddress), el('td', { className: 'num' }, num(m.topics))))),
    el('h2', {}, 'Settings'),
    table('settings', ['Setting', 'Value'], Object.entries(o.settings).map(([k, v]) =>
      el('tr', {}, el('td', {}, el('code', {}, k)), el('td', {}, String(v))))),
    el('p', { className: 'muted' }, 'Storage: ' + o.storage + '. Lateness percentiles per group are on each '
      + 'topic\'s page; rates are in the Prometheus metrics (docs/grafana/).'));
}
