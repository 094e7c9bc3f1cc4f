/** An audience as a picker offers it: its id as the value, its name as the label. */
export function AudienceOptions({ audiences }: { audiences: readonly { id: string; name: string }[] }) {
  return (
    <>
      {audiences.map((audience) => (
        <option key={audience.id} value={audience.id}>
          {audience.name}
        </option>
      ))}
    </>
  );
}
