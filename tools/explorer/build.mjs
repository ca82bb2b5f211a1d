// Bundles the explorer page into graphmem/server/explore/static/, which the server
// serves as plain files: everything the page needs ships with graphmem.

import { copyFile, mkdir, rm } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const out = here("../../graphmem/server/explore/static/");

await rm(out, { recursive: true, force: true });
await mkdir(out, { recursive: true });
await build({
  entryPoints: { explorer: here("src/main.js") },
  outdir: out,
  bundle: true,
  // The Neo4j Browser style, read by palette.js for the relation colours.
  loader: { ".grass": "text" },
  minify: true,
  format: "iife",
  target: ["es2022"],
  legalComments: "eof",
  logLevel: "warning",
});
await copyFile(here("src/index.html"), `${out}index.html`);
console.log(`explorer built into ${out}`);
