// The licence notices of the packages a build inlines (`inlinedDependencies`, see bundle.mjs):
// MIT and similar licences require their notice with every copy of the code, and an inlined
// package is not installed beside ours, so dist/THIRD-PARTY-NOTICES.md carries it.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

/**
 * THIRD-PARTY-NOTICES.md of package `owner` for the `packages` it inlines (resolved with
 * `require`): name, version, licence and its text; `{ error }` when a licence text cannot be found.
 */
export function thirdPartyNotices(owner, packages, require) {
  const sections = [];
  for (const name of packages) {
    const section = notice(name, require);
    if (typeof section !== "string") return section;
    sections.push(section);
  }
  return `# Third-party notices\n\n${owner} includes code from these packages.\n\n${sections.join("\n")}`;
}

function notice(name, require) {
  const dir = dirname(require.resolve(`${name}/package.json`));
  const meta = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const file = readdirSync(dir).find((f) => /^(licen[cs]e|copying)(\.|$)/i.test(f));
  const author = typeof meta.author === "string" ? meta.author : meta.author?.name;
  let text = file === undefined ? undefined : readFileSync(join(dir, file), "utf8").trim();
  // A package that declares MIT without shipping the file: the MIT text with its author.
  if (text === undefined && meta.license === "MIT") text = mitLicense(author ?? `the ${name} authors`);
  if (text === undefined)
    return { error: `inlined ${name} (${meta.license}) ships no licence file to reproduce` };
  const repository = typeof meta.repository === "string" ? meta.repository : meta.repository?.url;
  const source = `${meta.license}${repository ? `, ${repository}` : ""}`;
  return `## ${name} ${meta.version}\n\n${source}. Inlined into dist/ by the build.\n\n${text}\n`;
}

function mitLicense(holder) {
  return `MIT License

Copyright (c) ${holder}

Permission is hereby granted, free of charge, to any person obtaining a copy of this software and
associated documentation files (the "Software"), to deal in the Software without restriction,
including without limitation the rights to use, copy, modify, merge, publish, distribute,
sublicense, and/or sell copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all copies or
substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT
NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND
NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM,
DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT
OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.`;
}
