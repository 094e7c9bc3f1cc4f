declare module 'swagger-ui-dist' {
  /** Folder holding swagger-ui-bundle.js and swagger-ui.css. */
  export function getAbsoluteFSPath(): string;
}
