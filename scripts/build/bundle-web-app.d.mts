/** Build the inspector web app in `appDir` into `outDir` (app.js, app.css, index.html). */
export function buildWebApp(appDir: string, outDir: string): Promise<void>;
