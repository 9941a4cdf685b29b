import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { freePort } from '../../scripts/port.ts';

/** The system's range for the local ends of outgoing connections (Linux). */
const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
  .trim()
  .split(/\s+/)
  .map(Number);

describe('freePort: a port no outgoing connection can take before its server listens', () => {
  it('is below the range connections take their local ports from, and never given twice', async () => {
    const ports: number[] = [];
    for (let i = 0; i < 50; i++) ports.push(await freePort());
    assert.equal(new Set(ports).size, ports.length, 'no port given twice');
    for (const port of ports) assert.ok(port >= 10_000 && port < low!, `${port}: not below ${low}–${high}`);
  });
});
