"""The engine every design runs on: actions, the protocol text's form (``step``, ``text``), its
interpreters (plain values, the traced text model), decision-rule operations and properties as
data."""
