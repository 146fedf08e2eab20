// Calls/s and latencies of `add` over streamable HTTP with the TypeScript SDK client.
// Usage: node bench.mjs <url> <clients> <calls>; prints one JSON line (ms latencies).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, clientsText, callsText] = process.argv.slice(2);
const clients = Number(clientsText);
const calls = Number(callsText);
const connected = [];
for (let i = 0; i < clients; i++) {
  const client = new Client({ name: `bench-${i}`, version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  await client.callTool({ name: "add", arguments: { a: 1, b: 1 } }); // warm up
  connected.push(client);
}
const latencies = [];
const each = Math.ceil(calls / clients);
const start = performance.now();
await Promise.all(
  connected.map(async (client) => {
    for (let i = 0; i < each; i++) {
      const t = performance.now();
      await client.callTool({ name: "add", arguments: { a: i, b: 2 } });
      latencies.push(performance.now() - t);
    }
  }),
);
const seconds = (performance.now() - start) / 1000;
latencies.sort((a, b) => a - b);
const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))];
console.log(JSON.stringify({ calls_per_s: latencies.length / seconds, p50_ms: at(0.5), p99_ms: at(0.99) }));
await Promise.all(connected.map((c) => c.close()));
