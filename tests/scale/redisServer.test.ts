import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { describeWithRedis, startRedisServer } from '../helpers/redisServer';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describeWithRedis('the redis-server test helper', () => {
  it('starts a server on a private Unix socket that answers commands, and stop() kills it by pid and removes its folder', async () => {
    const server = await startRedisServer();
    expect(fs.statSync(server.socket).isSocket()).toBe(true);
    const reply = await new Promise<string>((resolve, reject) => {
      const connection = net.createConnection(server.socket, () => connection.write('SET k v\r\nGET k\r\n'));
      let text = '';
      connection.on('data', (chunk) => {
        text += chunk.toString();
        if (text.split('\r\n').length > 3) {
          connection.destroy();
          resolve(text);
        }
      });
      connection.on('error', reject);
    });
    expect(reply).toBe('+OK\r\n$1\r\nv\r\n');
    expect(alive(server.pid)).toBe(true);
    await server.stop();
    expect(alive(server.pid)).toBe(false);
    expect(fs.existsSync(path.dirname(server.socket))).toBe(false);
  });
});
