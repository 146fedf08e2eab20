// The official MCP TypeScript SDK client against `toolcast serve` (stdio or HTTP).
// Usage: node client.mjs stdio <command> [args...] | node client.mjs http <url> [calls]
// Prints one JSON line: what the client saw, and the milliseconds per `add` call.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const [mode, target, ...rest] = process.argv.slice(2);
const transport =
  mode === "stdio"
    ? new StdioClientTransport({ command: target, args: rest, env: process.env, stderr: "ignore" })
    : new StreamableHTTPClientTransport(new URL(target));
const calls = mode === "http" && rest.length ? Number(rest[0]) : 20;

const client = new Client({ name: "ts-test", version: "1.0.0" });
let changed = 0;
client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
  changed += 1;
});
await client.connect(transport);
const before = (await client.listTools()).tools.map((t) => t.name);
const added = await client.callTool({ name: "add", arguments: { a: 20, b: 22 } });
const opened = await client.callTool({ name: "orders_admin", arguments: {} });
const after = (await client.listTools()).tools.map((t) => t.name);
const closed = await client.callTool({ name: "close_order", arguments: { order: "o1" } });
let invalid;
try {
  invalid = await client.callTool({ name: "find_item", arguments: { query: "x", limit: 99 } });
} catch (error) {
  invalid = { error: String(error) };
}
const times = [];
for (let i = 0; i < calls; i++) {
  const start = performance.now();
  await client.callTool({ name: "add", arguments: { a: i, b: 1 } });
  times.push(performance.now() - start);
}
times.sort((a, b) => a - b);
console.log(
  JSON.stringify({
    protocolVersion: transport.protocolVersion ?? null,
    server: client.getServerVersion(),
    before,
    after,
    changed,
    added: added.structuredContent,
    opened: opened.isError ?? false,
    closed: closed.content[0].text,
    invalid: { isError: invalid.isError ?? null, text: invalid.content?.[0]?.text ?? invalid.error },
    p50: times[Math.floor(times.length / 2)],
    p99: times[Math.min(times.length - 1, Math.floor(times.length * 0.99))],
  }),
);
await client.close();
