// Builds graphmem/server/graphiql/static/ from the pinned packages in package-lock.json:
// GraphiQL, React and the explorer plugin as same-origin files, so the page the
// server answers on /graphql loads nothing from another host. The output is
// committed; `make graphiql` rebuilds it and `make test` checks it is unchanged.
import { build } from "esbuild";
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const modules = join(here, "node_modules");
const out = join(here, "..", "..", "graphmem", "server", "graphiql", "static");

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

// Already minified by their authors: copied as they are.
const copied = {
  "react.js": "react/umd/react.production.min.js",
  "react-dom.js": "react-dom/umd/react-dom.production.min.js",
  "explorer-plugin.js": "@graphiql/plugin-explorer/dist/index.umd.js",
  "explorer-plugin.css": "@graphiql/plugin-explorer/dist/style.css",
};
for (const [name, source] of Object.entries(copied)) {
  copyFileSync(join(modules, source), join(out, name));
}

// GraphiQL's browser build ships readable; minifying it halves the file.
for (const [name, source] of Object.entries({
  "graphiql.js": "graphiql/graphiql.min.js",
  "graphiql.css": "graphiql/graphiql.min.css",
})) {
  await build({
    entryPoints: [join(modules, source)],
    outfile: join(out, name),
    minify: true,
    legalComments: "none",
    logLevel: "warning",
  });
}

for (const name of ["index.html", "page.js"]) {
  copyFileSync(join(here, "src", name), join(out, name));
}

// The licences of everything shipped, beside it.
const licences = ["graphiql", "@graphiql/plugin-explorer", "react", "react-dom"]
  .map((pkg) => {
    const meta = JSON.parse(readFileSync(join(modules, pkg, "package.json"), "utf8"));
    const file = join(modules, pkg, "LICENSE");
    const text = existsSync(file)
      ? readFileSync(file, "utf8").trim()
      : `The package ships no LICENSE file; its package.json declares ${meta.license}.`;
    return `${pkg} ${meta.version} (${meta.license})\n\n${text}\n`;
  })
  .join("\n----------------------------------------------------------------\n\n");
writeFileSync(join(out, "LICENSES.txt"), licences);
